// `fs/read_text_file` and `fs/write_text_file`, sandboxed to the session's roots: symlinks
// resolved, the path policy applied, files opened by descriptor, size caps, binary files
// refused, atomic writes that keep the file's mode.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { permissionDenied, resourceNotFound } from "../protocol/wire-errors.js";
import { fdPath, openConfined } from "./fd-open.js";
import type { PathCheck } from "./path-policy.js";
import { resolveInRoots } from "./sandbox-path.js";

export interface FsLimits {
  maxReadBytes: number;
  maxWriteBytes: number;
}

export const DEFAULT_FS_LIMITS: FsLimits = {
  maxReadBytes: 10 * 1024 * 1024,
  maxWriteBytes: 10 * 1024 * 1024,
};

/** fs/read_text_file params as the agent sent them: `path` is checked by resolveInRoots. */
export interface ReadParams {
  path?: unknown;
  line?: unknown;
  limit?: unknown;
}

// A 1-based line or a line count, when the agent gave one as a number.
function count(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

// Text is UTF-8 without NUL bytes; anything else is treated as binary and refused.
function decodeText(buffer: Buffer, path: string): string {
  if (buffer.subarray(0, 8192).includes(0))
    throw permissionDenied(`${path} is a binary file`, { reason: "binary" });
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buffer);
  } catch {
    throw permissionDenied(`${path} is not valid UTF-8 text`, {
      reason: "binary",
    });
  }
}

// 1-based `line` and a line count `limit`, as agents send them (`line: 1, limit: 2000`).
export function sliceLines(
  text: string,
  line?: number | null,
  limit?: number | null,
): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? start + limit : lines.length;
  return lines.slice(start, end).join("\n");
}

// Resolves the agent's path inside the roots and applies the path policy to it.
export async function resolveChecked(
  path: unknown,
  roots: readonly string[],
  check?: PathCheck,
) {
  const resolved = await resolveInRoots(path, roots);
  await check?.(resolved.real, resolved.root, String(path));
  return resolved;
}

// Reads a text file opened by descriptor (see fd-open.ts): the file read is the one checked.
export async function readTextFile(
  params: ReadParams,
  roots: readonly string[],
  limits: FsLimits,
  check?: PathCheck,
) {
  const asked = String(params.path);
  const { real, exists } = await resolveChecked(params.path, roots, check);
  if (!exists)
    throw resourceNotFound(`file not found: ${asked}`, { path: params.path });
  const flags = constants.O_RDONLY | constants.O_NONBLOCK;
  const { handle } = await openConfined(real, flags, { roots, check, asked });
  let buffer: Buffer;
  try {
    const info = await handle.stat();
    if (info.isDirectory())
      throw resourceNotFound(`${asked} is a directory, not a file`);
    if (!info.isFile())
      throw permissionDenied(`${asked} is not a regular file`, {
        reason: "not-a-file",
      });
    if (info.nlink > 1) throw hardLink(asked, info.nlink);
    if (info.size > limits.maxReadBytes) {
      throw permissionDenied(
        `${asked} is ${info.size} bytes, over the read limit of ${limits.maxReadBytes}`,
        { reason: "too-large" },
      );
    }
    buffer = await handle.readFile();
  } finally {
    await handle.close();
  }
  const content = sliceLines(
    decodeText(buffer, asked),
    count(params.line),
    count(params.limit),
  );
  return { real, content, bytes: Buffer.byteLength(content) };
}

// The refusal of a file with several names: the deny rules go by name, and a file's other
// names (a hard link to a denied `.env` or key) cannot be found from this one.
function hardLink(asked: string, links: number): Error {
  return permissionDenied(
    `refused by rule "hard-link": ${asked} has ${links} names (hard links), and its other names cannot be checked against the deny rules — copy it to a file of its own to let agents read it`,
    { reason: "hard-link", path: asked },
  );
}

// Checks the content against the write limit.
function checkContent(content: unknown, limits: FsLimits): number {
  if (typeof content !== "string")
    throw permissionDenied("content must be a string");
  const bytes = Buffer.byteLength(content);
  if (bytes > limits.maxWriteBytes) {
    throw permissionDenied(
      `content is ${bytes} bytes, over the write limit of ${limits.maxWriteBytes}`,
      { reason: "too-large" },
    );
  }
  return bytes;
}

// Writes through a temporary file in the verified folder (opened by descriptor) and a rename,
// so readers never see a half-written file and a refused write leaves the old one intact; an
// existing file keeps its mode.
export async function writeTextFile(
  params: { path?: unknown; content?: unknown },
  roots: readonly string[],
  limits: FsLimits,
  check?: PathCheck,
) {
  const bytes = checkContent(params.content, limits);
  const asked = String(params.path);
  const { real, exists } = await resolveChecked(params.path, roots, check);
  const old = exists ? await stat(real) : undefined;
  if (old?.isDirectory()) throw permissionDenied(`${asked} is a directory`);
  await mkdir(dirname(real), { recursive: true });
  // The parent may have been created just now: check again that it is still inside the roots.
  const parent = await resolveInRoots(dirname(real), roots);
  const flags = constants.O_RDONLY | constants.O_DIRECTORY;
  const dir = await openConfined(parent.real, flags, { roots, asked });
  try {
    await check?.(join(dir.path, basename(real)), parent.root, asked);
    const base = fdPath(dir.handle) ?? parent.real;
    await replaceIn(base, basename(real), String(params.content), old?.mode);
  } finally {
    await dir.handle.close();
  }
  return { real, bytes };
}

// Writes `content` to `name` in the folder `base` through a new temporary file and a rename.
async function replaceIn(
  base: string,
  name: string,
  content: string,
  oldMode: number | undefined,
): Promise<void> {
  const mode = oldMode === undefined ? 0o666 : oldMode & 0o7777;
  const tmp = join(
    base,
    `.${name}.acphub-${randomBytes(6).toString("hex")}.tmp`,
  );
  const create =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_EXCL |
    constants.O_NOFOLLOW;
  try {
    const handle = await open(tmp, create, mode);
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
      if (oldMode !== undefined) await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(tmp, join(base, name));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
