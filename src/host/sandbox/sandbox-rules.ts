// What terminals and sandboxed agents share: the read denials built from config, and a wrap that
// gives the command a private temporary folder (its TMPDIR) removed on release.
import { mkdtempSync, readdirSync, rmSync, type Dirent } from "node:fs";
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
  /** File names (`*` globs) denied anywhere in the roots (`*.pem`, `id_*`). */
  denyNames?: readonly string[];
  home?: string;
}

/** Folders not searched for `.env*` files: dependencies and build output, large and not yours. */
const SKIPPED = new Set([
  "node_modules",
  ".git",
  "dist",
  "build",
  "target",
  ".venv",
  "venv",
  "__pycache__",
]);
const MAX_ENV_DEPTH = 6;
const MAX_ENV_FOLDERS = 20_000;

// A test for the file names `rules` deny in the roots: `.env*` (unless allowed) and denyNames.
export function deniedName(rules: ReadRules): (name: string) => boolean {
  const globs = (rules.denyNames ?? []).map(
    (g) =>
      new RegExp(
        `^${g
          .split("*")
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
        "i",
      ),
  );
  return (name) =>
    (!rules.allowEnvFiles && isEnvFile(name)) ||
    globs.some((re) => re.test(name));
}

// True when a name matches denyNames (keys, certificates), whatever allowEnvFiles says.
export function secretName(rules: ReadRules): (name: string) => boolean {
  return deniedName({ ...rules, allowEnvFiles: true });
}

// The denied files under a root, found by a bounded walk (the runtime's glob over the whole
// tree costs ~0.2 s per terminal in a repository, ~1 s in a folder of repositories).
function deniedFilesIn(
  root: string,
  patterns: readonly string[],
  denied: (name: string) => boolean,
): string[] {
  const found = patterns.map((p) => join(root, p));
  let folders = [root];
  let seen = 0;
  for (let depth = 0; depth < MAX_ENV_DEPTH && folders.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of folders) {
      if (++seen > MAX_ENV_FOLDERS) return found;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.isDirectory() && !SKIPPED.has(e.name))
          next.push(join(dir, e.name));
        else if (denied(e.name)) found.push(join(dir, e.name));
      }
    }
    folders = next;
  }
  return found;
}

/** A `.env*` name: the roots' environment files, denied unless `allowEnvFiles`. */
export function isEnvFile(name: string): boolean {
  return name.startsWith(".env");
}

/** One denied path and the rule that denies it, for refusals that name both. */
export interface PathRule {
  /** `deny-read` (terminals.denyRead) or `acphub-state` (acphub's state and config). */
  rule: "deny-read" | "acphub-state";
  path: string;
}

// The denied paths with their rules: the one list the OS sandbox and the fs handlers share
// (the roots' `.env*` files are the third rule, `env-file`, matched by name).
export function pathRules(rules: ReadRules): PathRule[] {
  return [
    ...rules.denyRead.map((p) => ({
      rule: "deny-read" as const,
      path: expandHome(p, rules.home),
    })),
    ...rules.protect.map((path) => ({ rule: "acphub-state" as const, path })),
  ];
}

// The paths nothing inside may read: the rules, the protected paths, the roots' `.env*` files
// and the files denyNames names (keys, certificates).
export function readDenials(rules: ReadRules, roots: readonly string[]) {
  const patterns = [
    ...(rules.allowEnvFiles ? [] : [".env*"]),
    ...(rules.denyNames ?? []),
  ];
  const denied = deniedName(rules);
  return [
    ...pathRules(rules).map((r) => r.path),
    ...(patterns.length
      ? roots.flatMap((r) => deniedFilesIn(r, patterns, denied))
      : []),
  ];
}

interface TempWrapRequest {
  argv: { command: string; args: readonly string[] };
  cwd: string;
  writable: readonly string[];
  denyRead: readonly string[];
  /** Paths not writable even inside `writable` (acphub's own files). */
  denyWrite?: readonly string[];
  allowedDomains: readonly string[];
  bwrapPath?: string;
  /** Name prefix of the temporary folder. */
  prefix: string;
  signal?: AbortSignal;
}

// Wraps the argv with a fresh temporary folder as its TMPDIR, writable, removed on release.
export async function wrapWithTemp(
  req: TempWrapRequest,
): Promise<WrappedCommand & { leftovers: string[] }> {
  const tmp = mkdtempSync(join(tmpdir(), req.prefix));
  const remove = () => rmSync(tmp, { recursive: true, force: true });
  const { argv } = req;
  try {
    const wrapped = await wrapInSandbox({
      script: `export TMPDIR=${quote([tmp])}; exec ${quote([argv.command, ...argv.args])}`,
      cwd: req.cwd,
      writable: [...req.writable, tmp],
      denyRead: req.denyRead,
      ...(req.denyWrite ? { denyWrite: req.denyWrite } : {}),
      allowedDomains: req.allowedDomains,
      bwrapPath: req.bwrapPath,
      signal: req.signal,
    });
    return {
      ...wrapped,
      // What a kill -9 of acphub would leave: the folder, and bubblewrap's mount points.
      leftovers: [tmp, ...wrapped.mountPoints],
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
