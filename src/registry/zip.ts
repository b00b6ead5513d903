// A small reader of zip archives: the central directory, stored and deflated entries, Unix modes
// and symlinks from the external attributes. Zip64, encryption and other methods are refused.
import { inflateRawSync } from "node:zlib";
import {
  MAX_ARCHIVE_ENTRIES,
  MAX_UNPACKED_BYTES,
  refuse,
  type ArchiveEntry,
} from "./archive-entry.js";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

// The end-of-central-directory record: searched for from the end (a comment may follow it).
function findEnd(zip: Buffer): number {
  const stop = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= stop; at--)
    if (zip.readUInt32LE(at) === EOCD) return at;
  throw refuse("(archive)", "not a zip archive (no end of central directory)");
}

// One entry's bytes: stored or deflated, at most the size it declares.
function entryData(
  zip: Buffer,
  name: string,
  local: number,
  method: number,
  packed: number,
  size: number,
): Buffer {
  if (zip.readUInt32LE(local) !== LOCAL) throw refuse(name, "bad local header");
  const start =
    local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const raw = zip.subarray(start, start + packed);
  if (raw.length < packed) throw refuse(name, "the archive is truncated");
  if (method === 0) return Buffer.from(raw);
  if (method !== 8)
    throw refuse(name, `unsupported zip compression method ${method}`);
  const data = inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
  if (data.length !== size)
    throw refuse(name, "size does not match its header");
  return data;
}

// The kind and mode an entry's external attributes give (Unix when made on Unix).
function kindOf(
  name: string,
  attributes: number,
): { kind: ArchiveEntry["kind"]; mode: number } {
  const unix = attributes >>> 16;
  const type = unix & 0o170000;
  if (type === 0o120000) return { kind: "symlink", mode: 0o777 };
  if (name.endsWith("/") || type === 0o040000)
    return { kind: "dir", mode: 0o755 };
  if (type !== 0 && type !== 0o100000)
    throw refuse(name, "not a file, folder or link");
  return { kind: "file", mode: unix ? unix & 0o777 : 0o644 };
}

// The entries of a zip archive, in central-directory order.
export function readZip(zip: Buffer): ArchiveEntry[] {
  const end = findEnd(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff)
    throw refuse("(archive)", "zip64 archives are not supported");
  if (count > MAX_ARCHIVE_ENTRIES)
    throw refuse("(archive)", "too many entries");
  const entries: ArchiveEntry[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL)
      throw refuse("(archive)", "bad central directory");
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const attributes = zip.readUInt32LE(at + 38);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + nameLength + skip;
    if (flags & 1) throw refuse(name, "encrypted entries are not supported");
    total += size;
    if (total > MAX_UNPACKED_BYTES)
      throw refuse(name, "the archive unpacks to more than the limit");
    const { kind, mode } = kindOf(name, attributes);
    if (kind === "dir") {
      entries.push({ path: name, kind, mode });
      continue;
    }
    const data = entryData(zip, name, local, method, packed, size);
    entries.push(
      kind === "symlink"
        ? { path: name, kind, mode, target: data.toString("utf8") }
        : { path: name, kind, mode, data },
    );
  }
  return entries;
}
