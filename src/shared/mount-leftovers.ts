// What bubblewrap leaves on the host when its owner was killed -9 (host/sandbox/mount-points.ts
// finds them): removed only while each still looks as bubblewrap and the sandbox runtime made
// it, since a record naming them is a file anyone with the state folder could write — an empty
// read-only file (mode 0444: a file's mount point), an empty folder with a dot name (a
// directory's, such as `.claude`), or the runtime's empty `claude-empty-*` folder in the temp
// dir. Nothing with content, and no other file or folder, is ever removed.
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, resolve } from "node:path";

const READ_ONLY = 0o444;

// A folder bubblewrap or the runtime made empty: a dot name, or the runtime's mount source.
const madeFolder = (path: string) =>
  basename(path).startsWith(".") ||
  (dirname(path) === resolve(tmpdir()) &&
    basename(path).startsWith("claude-empty-"));

/** Removes each path that still is what bubblewrap made (see above), deepest first. */
export function removeMountLeftovers(paths: readonly string[]): void {
  const deepestFirst = paths
    .filter((p) => isAbsolute(p))
    .sort((a, b) => b.length - a.length);
  for (const path of deepestFirst)
    try {
      const stat = lstatSync(path);
      const mode = stat.mode & 0o777;
      if (stat.isFile() && stat.size === 0 && mode === READ_ONLY)
        unlinkSync(path);
      else if (
        stat.isDirectory() &&
        madeFolder(path) &&
        readdirSync(path).length === 0
      )
        rmdirSync(path);
    } catch {
      // Gone already, or not ours to remove.
    }
}
