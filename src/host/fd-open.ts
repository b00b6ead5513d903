// Opens a resolved path by file descriptor so a link swapped in after the check cannot lead
// outside the roots: O_NOFOLLOW on the last component, fstat compared with the resolved file
// (device and inode), and the open file's own path (Linux: /proc/self/fd) checked again.
import { existsSync } from "node:fs";
import {
  constants,
  lstat,
  open,
  readlink,
  type FileHandle,
} from "node:fs/promises";
import { permissionDenied } from "../protocol/wire-errors.js";
import type { PathCheck } from "./path-policy.js";
import { realRoots, resolveInRoots, within } from "./sandbox-path.js";

const PROC_FD = existsSync("/proc/self/fd");

/** What an open file must still satisfy: inside the roots, not denied. */
export interface Confinement {
  roots: readonly string[];
  check?: PathCheck;
  /** The path as the agent named it, for refusals. */
  asked: string;
}

// The refusal when the file opened is not the one checked (something changed in between).
function changed(asked: string): Error {
  return permissionDenied(
    `${asked} changed while it was being opened (a link swapped in?); refused`,
    { reason: "path-changed", path: asked },
  );
}

// The kernel's path of an open descriptor, or undefined where the system does not say.
export function fdPath(handle: FileHandle): string | undefined {
  return PROC_FD ? `/proc/self/fd/${handle.fd}` : undefined;
}

// Checks that an open file is inside a root and not denied, by the path the kernel knows it
// by (Linux) or, elsewhere, by resolving the asked path again and comparing inodes.
async function confirm(
  handle: FileHandle,
  real: string,
  where: Confinement,
): Promise<string> {
  const info = await handle.stat();
  let now = real;
  if (PROC_FD) now = await readlink(fdPath(handle)!);
  else {
    const again = await resolveInRoots(real, where.roots);
    const other = await lstat(again.real);
    if (other.dev !== info.dev || other.ino !== info.ino)
      throw changed(where.asked);
    now = again.real;
  }
  const root = (await realRoots(where.roots)).find((r) => within(now, r));
  if (!root) throw changed(where.asked);
  await where.check?.(now, root, where.asked);
  return now;
}

// Opens `real` (already resolved and checked) without following a link at its last
// component; the file opened must be the one resolved and still inside a root.
export async function openConfined(
  real: string,
  flags: number,
  where: Confinement,
): Promise<{ handle: FileHandle; path: string }> {
  const expected = await lstat(real).catch(() => undefined);
  let handle: FileHandle;
  try {
    handle = await open(real, flags | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOENT" || code === "ENOTDIR")
      throw changed(where.asked);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!expected || expected.dev !== info.dev || expected.ino !== info.ino)
      throw changed(where.asked);
    return { handle, path: await confirm(handle, real, where) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
