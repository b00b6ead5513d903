// The sandbox part of `acphub agents doctor`: is the OS sandbox here, what is missing, and does
// a command actually start inside it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { checkSandbox, wrapInSandbox } from "../host/sandbox/os-sandbox.js";
import { missingText } from "../host/sandbox/sandbox-rules.js";
import { errorMessage } from "../shared/errors.js";

// Starts `echo` inside the sandbox; the answer says whether it ran, or why not.
async function probe(bwrapPath: string | undefined): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "acphub-doctor-"));
  try {
    const w = await wrapInSandbox({
      script: "echo sandbox-ok",
      cwd: dir,
      writable: [dir],
      denyRead: [],
      allowedDomains: [],
      bwrapPath,
    });
    const r = spawnSync(w.command, w.args, { cwd: dir, encoding: "utf8" });
    w.release();
    return r.stdout.includes("sandbox-ok")
      ? "a command starts inside it"
      : `but a command did not start inside it: ${(r.stderr || r.error?.message || "").trim().slice(0, 300)}`;
  } catch (error) {
    return `but wrapping a command failed: ${errorMessage(error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The doctor's lines about the sandbox, for terminals and for agents with `sandbox: true`.
export async function sandboxReport(config: Config): Promise<string[]> {
  const t = config.terminals ?? {};
  const mode = t.sandbox ?? "auto";
  const check = checkSandbox(t.bwrapPath);
  const sandboxed = Object.entries(config.agents ?? {})
    .filter(([, e]) => e.sandbox)
    .map(([n]) => n);
  const agents = sandboxed.length
    ? `; agents with sandbox: true: ${sandboxed.join(", ")}`
    : "";
  if (!check.available) {
    const effect =
      mode === "os"
        ? "terminals are refused (terminals.sandbox: os)"
        : mode === "auto"
          ? "WARNING: terminals run WITHOUT an OS sandbox (terminals.sandbox: auto), limited only by the command check, which is a speed bump, not a boundary"
          : "terminals run without it (terminals.sandbox: off)";
    return [`  sandbox: ${missingText(check)}; ${effect}${agents}\n`];
  }
  const works = await probe(t.bwrapPath);
  return [
    `  sandbox: available, ${works}; terminals: ${mode === "off" ? "not sandboxed (terminals.sandbox: off)" : "sandboxed"}${agents}\n`,
  ];
}
