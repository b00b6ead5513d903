// Resolves an agent-supplied path the way the kernel would, following every symlink —
// including those among the parents of a file that does not exist yet — and checks that the
// result lies inside one of the allowed roots. Lexical tricks (`..`, `/proc/self/root`, chains,
// loops, prefix look-alikes such as /w-evil for root /w) all end at the real path.
import { lstat, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, resolve, sep } from "node:path";
import { invalidParams, permissionDenied } from "../protocol/wire-errors.js";

export const MAX_PATH_BYTES = 4096;
const MAX_SYMLINK_HOPS = 40;

export interface ResolvedPath {
  /** The real path (every existing component resolved). */
  real: string;
  /** The root it lies in. */
  root: string;
  /** Whether the path exists now. */
  exists: boolean;
}

// Walks `path` component by component from `/`, resolving symlinks as it goes. Components
// after the first missing one are joined lexically (nothing exists there to follow).
async function walk(
  path: string,
  hops: { count: number },
): Promise<{ real: string; exists: boolean }> {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  let current = "/";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === "..") {
      current = resolve(current, "..");
      continue;
    }
    const candidate = join(current, part);
    let stat;
    try {
      stat = await lstat(candidate);
    } catch {
      return missing(
        resolve(candidate, ...parts.slice(i + 1)),
        parts.slice(i + 1),
        hops,
      );
    }
    if (!stat.isSymbolicLink()) {
      current = candidate;
      continue;
    }
    if (++hops.count > MAX_SYMLINK_HOPS) {
      throw permissionDenied(`too many symbolic links resolving ${path}`, {
        reason: "symlink-loop",
      });
    }
    const target = await readlink(candidate);
    const next = await walk(
      isAbsolute(target) ? target : join(current, target),
      hops,
    );
    if (!next.exists) {
      return missing(
        resolve(next.real, ...parts.slice(i + 1)),
        parts.slice(i + 1),
        hops,
      );
    }
    current = next.real;
  }
  return { real: current, exists: true };
}

// Below a missing component nothing exists, unless `..` climbs back out of it into real
// folders (`missing/../link/x`): then the normalized path is walked again, links and all.
function missing(
  normalized: string,
  rest: string[],
  hops: { count: number },
):
  | Promise<{ real: string; exists: boolean }>
  | { real: string; exists: boolean } {
  return rest.includes("..")
    ? walk(normalized, hops)
    : { real: normalized, exists: false };
}

// The real path of an absolute path, every existing component resolved (missing ones lexically).
export function realPathOf(
  path: string,
): Promise<{ real: string; exists: boolean }> {
  return Promise.resolve(walk(path, { count: 0 }));
}

// Roots are compared by their real paths; a root that does not exist allows nothing.
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    try {
      out.push(await realpath(root));
    } catch {
      // a missing root grants nothing
    }
  }
  return out;
}

// True when `path` is `root` or below it (not a look-alike such as /w-evil for /w).
export function within(path: string, root: string): boolean {
  return (
    path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
  );
}

// Checks the request's path and resolves it; throws a RequestError that says what is wrong.
export async function resolveInRoots(
  path: unknown,
  roots: readonly string[],
): Promise<ResolvedPath> {
  if (typeof path !== "string" || path === "")
    throw invalidParams("path must be a non-empty string");
  if (path.includes("\0"))
    throw invalidParams("path contains a NUL byte", { reason: "nul-byte" });
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw invalidParams(`path is longer than ${MAX_PATH_BYTES} bytes`, {
      reason: "too-long",
    });
  }
  if (!isAbsolute(path)) {
    throw invalidParams(`path must be absolute, got ${JSON.stringify(path)}`, {
      reason: "relative",
    });
  }
  const { real, exists } = await walk(path, { count: 0 });
  const root = (await realRoots(roots)).find((r) => within(real, r));
  if (!root) {
    throw permissionDenied(`${path} is outside the session's allowed roots`, {
      reason: "outside-roots",
      path,
      resolved: real,
    });
  }
  return { real, root, exists };
}
