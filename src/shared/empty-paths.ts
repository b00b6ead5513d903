// Removing what may be someone else's by now: only an empty file or an empty folder goes.
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { isAbsolute } from "node:path";

/** Removes each path that is still an empty file or an empty folder (deepest first). */
export function removeIfEmpty(paths: readonly string[]): void {
  const deepestFirst = paths
    .filter((p) => isAbsolute(p))
    .sort((a, b) => b.length - a.length);
  for (const path of deepestFirst)
    try {
      const stat = lstatSync(path);
      if (stat.isFile() && stat.size === 0) unlinkSync(path);
      else if (stat.isDirectory() && readdirSync(path).length === 0)
        rmdirSync(path);
    } catch {
      // Gone already, or not ours to remove.
    }
}
