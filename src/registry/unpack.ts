// Writes an archive's entries into one folder and nowhere else: no absolute paths, no `..`, no
// writing through a link, no link (symbolic or hard) that leads out of the folder. The first
// offending entry refuses the whole archive; the caller deletes the half-written folder.
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { join, posix, relative, isAbsolute, sep } from "node:path";
import { refuse, type ArchiveEntry } from "./archive-entry.js";

// The entry's path as safe segments below the folder, or a refusal.
export function safeSegments(path: string, what = path): string[] {
  if (path.includes("\\")) throw refuse(what, "backslash in the path");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path))
    throw refuse(what, "absolute path");
  const segments = path.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes(".."))
    throw refuse(what, "path leaves the folder (..)");
  return segments;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

// Creates the entry's parent folders; refuses when one of them is a link or a file.
function makeParents(root: string, segments: string[], entry: string): void {
  let at = root;
  for (const segment of segments.slice(0, -1)) {
    at = join(at, segment);
    const stat = lstatOrUndefined(at);
    if (stat?.isSymbolicLink()) throw refuse(entry, "path goes through a link");
    if (stat && !stat.isDirectory())
      throw refuse(entry, "path goes through a file");
    if (!stat) mkdirSync(at, { mode: 0o755 });
  }
}

// Refuses a symbolic link whose target, read from the link's own folder, is outside.
function checkLinkTarget(
  segments: string[],
  target: string,
  entry: string,
): void {
  if (
    target === "" ||
    target.startsWith("/") ||
    /^[A-Za-z]:/.test(target) ||
    target.includes("\\")
  )
    throw refuse(entry, `link to an absolute path (${target})`);
  const resolved = posix.normalize(
    posix.join(...segments.slice(0, -1), target),
  );
  if (resolved === ".." || resolved.startsWith("../"))
    throw refuse(entry, `link leaves the folder (${target})`);
}

// Writes one entry below `root`.
function writeEntry(root: string, entry: ArchiveEntry): string | undefined {
  const segments = safeSegments(entry.path);
  if (segments.length === 0) return undefined;
  makeParents(root, segments, entry.path);
  const dest = join(root, ...segments);
  const existing = lstatOrUndefined(dest);
  if (existing && !(existing.isDirectory() && entry.kind === "dir"))
    throw refuse(entry.path, "appears twice in the archive");
  const mode = (entry.mode & 0o755) | 0o600;
  if (entry.kind === "dir") {
    if (!existing) mkdirSync(dest, { mode: mode | 0o700 });
  } else if (entry.kind === "file") {
    writeFileSync(dest, entry.data ?? Buffer.alloc(0), { flag: "wx", mode });
  } else if (entry.kind === "symlink") {
    checkLinkTarget(segments, entry.target ?? "", entry.path);
    symlinkSync(entry.target!, dest);
    return dest;
  } else {
    const source = join(root, ...safeSegments(entry.target ?? "", entry.path));
    if (!lstatOrUndefined(source)?.isFile())
      throw refuse(
        entry.path,
        `hard link to "${entry.target}", not a file unpacked before it`,
      );
    copyFileSync(source, dest);
    chmodSync(dest, mode);
  }
  return undefined;
}

// Whether `path` (a real path) is `root` or below it.
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return (
    rel === "" ||
    (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))
  );
}

// Unpacks every entry into `root` (an empty folder), then checks each link's real target.
export function unpackInto(root: string, entries: ArchiveEntry[]): void {
  const links: string[] = [];
  for (const entry of entries) {
    const link = writeEntry(root, entry);
    if (link) links.push(link);
  }
  const realRoot = realpathSync.native(root);
  for (const link of links) {
    let real: string;
    try {
      real = realpathSync.native(link);
    } catch {
      throw refuse(relative(root, link), "link to nothing the archive holds");
    }
    if (!isInside(realRoot, real))
      throw refuse(
        relative(root, link),
        "link leads out of the folder through other links",
      );
  }
}
