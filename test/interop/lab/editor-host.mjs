// What the lab's editor does when an agent asks it for files and terminals: plain local files
// and `sh -c` terminals, as an editor such as Zed serves them. Only used when the editor
// advertised the capability.
import { spawn } from "node:child_process";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";

// fs/read_text_file with `line` (1-based) and `limit`; a missing file is -32002 as agents expect.
async function readText(params) {
  let text;
  try {
    text = await readFile(params.path, "utf8");
  } catch (error) {
    if (error?.code === "ENOENT")
      throw Object.assign(new Error(`no such file ${params.path}`), {
        code: -32002,
      });
    throw error;
  }
  if (params.line == null && params.limit == null) return { content: text };
  const lines = text.split("\n");
  const start = Math.max(0, (params.line ?? 1) - 1);
  return {
    content: lines
      .slice(start, params.limit ? start + params.limit : undefined)
      .join("\n"),
  };
}

/** A terminal table: create runs a shell line (no args) or argv; output is kept whole. */
function terminals() {
  const table = new Map();
  let seq = 0;
  return {
    create(params) {
      const id = `ed-term-${++seq}`;
      const argv = params.args?.length
        ? [params.command, params.args]
        : ["sh", ["-c", params.command]];
      const env = {
        ...process.env,
        ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])),
      };
      const child = spawn(argv[0], argv[1], {
        cwd: params.cwd ?? process.cwd(),
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      const t = { child, output: "", exit: undefined };
      child.stdout.on("data", (d) => (t.output += d));
      child.stderr.on("data", (d) => (t.output += d));
      t.done = new Promise((resolve) =>
        child.on("close", (exitCode, signal) =>
          resolve((t.exit = { exitCode, signal })),
        ),
      );
      child.on(
        "error",
        (e) => (
          (t.output += String(e)),
          (t.exit = { exitCode: 127, signal: null })
        ),
      );
      table.set(id, t);
      return { terminalId: id };
    },
    output: ({ terminalId }) => {
      const t = table.get(terminalId);
      return {
        output: t.output,
        truncated: false,
        ...(t.exit ? { exitStatus: t.exit } : {}),
      };
    },
    waitForExit: async ({ terminalId }) => table.get(terminalId).done,
    kill: ({ terminalId }) => {
      const t = table.get(terminalId);
      try {
        process.kill(-t.child.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
      return {};
    },
    release: ({ terminalId }) => {
      const t = table.get(terminalId);
      if (t && !t.exit) t.child.kill("SIGKILL");
      table.delete(terminalId);
      return {};
    },
  };
}

// The request handlers of an editor that offers files and terminals.
export function editorHost() {
  const t = terminals();
  return {
    "fs/read_text_file": readText,
    "fs/write_text_file": async (p) => {
      await mkdir(dirname(p.path), { recursive: true });
      await writeFile(p.path, p.content);
      return {};
    },
    "terminal/create": (p) => t.create(p),
    "terminal/output": (p) => t.output(p),
    "terminal/wait_for_exit": (p) => t.waitForExit(p),
    "terminal/kill": (p) => t.kill(p),
    "terminal/release": (p) => t.release(p),
  };
}
