// A small reader of (gzipped) tar archives: ustar, GNU long names and pax paths, enough for the
// release archives agents ship. Devices, fifos and sparse files are refused, not skipped.
import { gunzipSync } from "node:zlib";
import {
  MAX_ARCHIVE_ENTRIES,
  MAX_UNPACKED_BYTES,
  refuse,
  type ArchiveEntry,
} from "./archive-entry.js";

const BLOCK = 512;

// A NUL-terminated text field of a header.
function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString("utf8");
}

// An octal number field (or GNU's base-256 form for big sizes).
function octal(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if ((field[0]! & 0x80) !== 0) {
    let value = 0;
    for (let i = 1; i < length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const digits = field.toString("ascii").replace(/[\0 ]/g, "");
  return digits === "" ? 0 : parseInt(digits, 8);
}

// The `path` (or `linkpath`) records of a pax extended header.
function paxRecords(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = parseInt(data.subarray(at, space).toString("ascii"), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) records[record.slice(0, eq)] = record.slice(eq + 1);
    at += length;
  }
  return records;
}

const KINDS: Record<string, ArchiveEntry["kind"]> = {
  "0": "file",
  "\0": "file",
  "7": "file",
  "5": "dir",
  "2": "symlink",
  "1": "hardlink",
};

// One entry from its header (the path and link a GNU or pax record gave, when one did).
function toEntry(
  header: Buffer,
  data: Buffer,
  path: string,
  longLink: string | undefined,
): ArchiveEntry {
  const type = String.fromCharCode(header[156]!);
  const kind = KINDS[type];
  if (!kind) throw refuse(path, `unsupported tar entry type "${type}"`);
  const target = longLink ?? text(header, 157, 100);
  return {
    path,
    kind,
    mode: octal(header, 100, 8) & 0o777,
    ...(kind === "file" ? { data: Buffer.from(data) } : {}),
    ...(kind === "symlink" || kind === "hardlink" ? { target } : {}),
  };
}

// The entries of a tar archive (gunzipped first when it starts with gzip's magic bytes).
export function readTar(archive: Buffer): ArchiveEntry[] {
  const tar =
    archive[0] === 0x1f && archive[1] === 0x8b
      ? gunzipSync(archive, { maxOutputLength: MAX_UNPACKED_BYTES })
      : archive;
  const entries: ArchiveEntry[] = [];
  let longName: string | undefined;
  let longLink: string | undefined;
  let at = 0;
  while (at + BLOCK <= tar.length && entries.length <= MAX_ARCHIVE_ENTRIES) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const type = String.fromCharCode(header[156]!);
    const size = octal(header, 124, 12);
    const data = tar.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length < size)
      throw refuse(text(header, 0, 100), "the archive is truncated");
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const prefix = text(header, 345, 155);
    const named = prefix
      ? `${prefix}/${text(header, 0, 100)}`
      : text(header, 0, 100);
    if (type === "L") longName = data.toString("utf8").replace(/\0+$/, "");
    else if (type === "K") longLink = data.toString("utf8").replace(/\0+$/, "");
    else if (type === "x") {
      const pax = paxRecords(data);
      longName = pax["path"] ?? longName;
      longLink = pax["linkpath"] ?? longLink;
    } else if (type === "g") continue;
    else {
      entries.push(toEntry(header, data, longName ?? named, longLink));
      longName = undefined;
      longLink = undefined;
    }
  }
  if (entries.length > MAX_ARCHIVE_ENTRIES)
    throw refuse("(archive)", "too many entries");
  return entries;
}
