// What terminals and sandboxed agents share: the read denials built from config, and a wrap that
// gives the command a private temporary folder (its TMPDIR) removed on release.
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { quote } from "shell-quote";
import {
  wrapInSandbox,
  type SandboxCheck,
  type WrappedCommand,
} from "./os-sandbox.js";

// What to install, as one sentence for an error or a warning.
export function missingText(check: SandboxCheck): string {
  return `the OS sandbox is not available: missing ${check.missing.join(", ")}; install them (apt-get install bubblewrap socat ripgrep)`;
}

// `~/x` in a rule means the user's home folder.
export function expandHome(path: string, home = homedir()): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

export interface ReadRules {
  denyRead: readonly string[];
  /** Always denied (acphub's state folder and config). */
  protect: readonly string[];
  allowEnvFiles: boolean;
  home?: string;
}

// The paths nothing inside may read: the rules, the protected paths, the roots' `.env*` files.
export function readDenials(rules: ReadRules, roots: readonly string[]) {
  return [
    ...rules.denyRead.map((p) => expandHome(p, rules.home)),
    ...rules.protect,
    ...(rules.allowEnvFiles ? [] : roots.map((r) => join(r, "**/.env*"))),
  ];
}

export interface TempWrapRequest {
  argv: { command: string; args: readonly string[] };
  cwd: string;
  writable: readonly string[];
  denyRead: readonly string[];
  allowedDomains: readonly string[];
  bwrapPath?: string;
  /** Name prefix of the temporary folder. */
  prefix: string;
}

// Wraps the argv with a fresh temporary folder as its TMPDIR, writable, removed on release.
export async function wrapWithTemp(
  req: TempWrapRequest,
): Promise<WrappedCommand & { tmp: string }> {
  const tmp = mkdtempSync(join(tmpdir(), req.prefix));
  const remove = () => rmSync(tmp, { recursive: true, force: true });
  const { argv } = req;
  try {
    const wrapped = await wrapInSandbox({
      script: `export TMPDIR=${quote([tmp])}; exec ${quote([argv.command, ...argv.args])}`,
      cwd: req.cwd,
      writable: [...req.writable, tmp],
      denyRead: req.denyRead,
      allowedDomains: req.allowedDomains,
      bwrapPath: req.bwrapPath,
    });
    return {
      ...wrapped,
      tmp,
      release: () => {
        wrapped.release();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
