// Which executable a command word means: a name is the program of that name on acphub's own
// PATH (the one the terminal gets; an agent cannot change it), a path is that file. An
// allowlist entry allows only the file it resolves to, so `/tmp/x/git` is not `git`.
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import which from "which";

// The path with its folder's links resolved (the last component kept: a link there may be a
// multi-call program that acts by its name).
function canonical(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/** Names already looked up, by search path (a PATH lookup per name per check is slow). */
const found = new Map<string, string | null>();

// The file a name means on the search path, remembered for the process.
function lookUp(name: string, path: string): string | null {
  const key = `${path}\0${name}`;
  if (!found.has(key))
    found.set(key, which.sync(name, { path, nothrow: true }));
  return found.get(key)!;
}

// Builds the test for one check: allowed names, and the files they resolve to.
export function allowedExecutables(
  policy: { allow: readonly string[]; searchPath?: string },
  cwd: string | undefined,
): (word: string) => boolean {
  const path = policy.searchPath ?? process.env["PATH"] ?? "";
  const names = new Set(policy.allow.filter((a) => !a.includes("/")));
  const files = new Set<string>();
  for (const entry of policy.allow) {
    const file = entry.includes("/") ? entry : lookUp(entry, path);
    if (file) files.add(canonical(file));
  }
  return (word) => {
    if (!word.includes("/")) return names.has(word);
    if (!isAbsolute(word) && cwd === undefined) return false;
    return files.has(canonical(resolve(cwd ?? "/", word)));
  };
}

// True when a program of this name is on the search path (it would run, not a function).
export function onSearchPath(
  policy: { searchPath?: string },
  name: string,
): boolean {
  return lookUp(name, policy.searchPath ?? process.env["PATH"] ?? "") !== null;
}
