// Which executable a command word means: a name is the program of that name on acphub's own
// PATH (the one the terminal gets; an agent cannot change it), a path is that file. An
// allowlist entry allows only the files of that name in PATH's folders, so `/tmp/x/git` is
// not `git`.
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
const found = new Map<string, readonly string[]>();

// The files of that name in the search path's folders (first one first), remembered.
function lookUp(name: string, path: string): readonly string[] {
  const key = `${path}\0${name}`;
  const known = found.get(key);
  if (known) return known;
  const hits = which.sync(name, { path, all: true, nothrow: true }) ?? [];
  found.set(key, hits);
  return hits;
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
    const hits = entry.includes("/") ? [entry] : lookUp(entry, path);
    for (const file of hits) files.add(canonical(file));
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
  return (
    lookUp(name, policy.searchPath ?? process.env["PATH"] ?? "").length > 0
  );
}
