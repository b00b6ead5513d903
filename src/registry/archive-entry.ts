// What the archive readers (tar.ts, zip.ts) give the unpacker: entries as the archive states
// them, nothing on disk yet, so every path and link is checked before anything is written.
import { HubError } from "../shared/errors.js";

export interface ArchiveEntry {
  /** The path as written in the archive (checked by unpack.ts, not here). */
  path: string;
  kind: "file" | "dir" | "symlink" | "hardlink";
  /** Unix permission bits (the archive's, or 0o644 / 0o755 when it has none). */
  mode: number;
  data?: Buffer;
  /** A link's target, as written in the archive. */
  target?: string;
}

// A refusal to unpack, naming the archive's entry.
export function refuse(entry: string, why: string): HubError {
  return new HubError(
    "INSTALL_REFUSED",
    `archive entry "${entry}": ${why}; nothing was installed`,
    {
      details: { entry },
    },
  );
}

/** More entries than any agent archive has: the reader stops there. */
export const MAX_ARCHIVE_ENTRIES = 100_000;
/** The unpacked size of an archive, all entries together. */
export const MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;
