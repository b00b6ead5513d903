// `fs/read_text_file` and `fs/write_text_file`, sandboxed to the session's roots: symlinks
// resolved, size caps, binary files refused, atomic writes that keep the file's mode.
import { randomBytes } from "node:crypto";
import {
  chmod,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  stat,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { permissionDenied, resourceNotFound } from "../protocol/wire-errors.js";
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

export async function readTextFile(
  params: ReadParams,
  roots: readonly string[],
  limits: FsLimits,
) {
  const { real, exists } = await resolveInRoots(params.path, roots);
  if (!exists)
    throw resourceNotFound(`file not found: ${String(params.path)}`, {
      path: params.path,
    });
  const info = await stat(real);
  if (info.isDirectory())
    throw resourceNotFound(`${String(params.path)} is a directory, not a file`);
  if (info.size > limits.maxReadBytes) {
    throw permissionDenied(
      `${String(params.path)} is ${info.size} bytes, over the read limit of ${limits.maxReadBytes}`,
      { reason: "too-large" },
    );
  }
  const content = sliceLines(
    decodeText(await readFile(real), String(params.path)),
    count(params.line),
    count(params.limit),
  );
  return { real, content, bytes: Buffer.byteLength(content) };
}

// Writes through a temporary file in the same folder and a rename, so readers never see a
// half-written file; an existing file keeps its mode.
export async function writeTextFile(
  params: { path?: unknown; content?: unknown },
  roots: readonly string[],
  limits: FsLimits,
) {
  if (typeof params.content !== "string")
    throw permissionDenied("content must be a string");
  const bytes = Buffer.byteLength(params.content);
  if (bytes > limits.maxWriteBytes) {
    throw permissionDenied(
      `content is ${bytes} bytes, over the write limit of ${limits.maxWriteBytes}`,
      { reason: "too-large" },
    );
  }
  const { real, exists } = await resolveInRoots(params.path, roots);
  const mode = exists ? (await stat(real)).mode & 0o7777 : undefined;
  if (exists && (await stat(real)).isDirectory())
    throw permissionDenied(`${String(params.path)} is a directory`);
  await mkdir(dirname(real), { recursive: true });
  // The parent may have been created just now: check again that it is still inside the roots.
  await resolveInRoots(dirname(real), roots);
  const tmp = join(
    dirname(real),
    `.${basename(real)}.acphub-${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(tmp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(params.content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, real);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  return { real, bytes };
}
