// The registry acphub searches: the snapshot it ships (dated, its SHA-256 recorded beside it)
// until `agents registry update` stores a newer one in the state folder. Both are checked
// against their recorded hash on every read; a refresh that is not the schema keeps the old one.
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HubError } from "../shared/errors.js";
import { parseRegistry, type Registry } from "./schema.js";
import { fetchBytes, sha256 } from "./fetch-bytes.js";

/** The public registry (the CDN's aggregated registry.json). */
export const DEFAULT_REGISTRY_URL =
  "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

/** A registry.json is small (the public one is ~20 kB); more is refused. */
export const MAX_REGISTRY_BYTES = 8 * 1024 * 1024;

export const SHIPPED_SNAPSHOT_DIR = fileURLToPath(
  new URL("./snapshot/", import.meta.url),
);

export interface SnapshotMeta {
  /** When the snapshot was taken (YYYY-MM-DD for the shipped one, an ISO time for a refresh). */
  date: string;
  /** Where it came from. */
  source: string;
  file: string;
  sha256: string;
}

export interface LoadedRegistry {
  registry: Registry;
  meta: SnapshotMeta;
  /** "shipped" (in the package) or "updated" (from `agents registry update`). */
  origin: "shipped" | "updated";
  dir: string;
}

// The folder of the refreshed snapshot, in acphub's state folder.
export function updatedSnapshotDir(stateDir: string): string {
  return join(stateDir, "registry");
}

// Reads a snapshot folder: its meta, then the registry whose hash must match the meta's.
function readSnapshot(
  dir: string,
  origin: LoadedRegistry["origin"],
): LoadedRegistry {
  const metaFile = join(dir, "snapshot.json");
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(readFileSync(metaFile, "utf8")) as SnapshotMeta;
  } catch (error) {
    throw new HubError(
      "REGISTRY_INVALID",
      `cannot read ${metaFile}: ${(error as Error).message}`,
    );
  }
  const file = join(dir, meta.file);
  const bytes = readFileSync(file);
  const actual = sha256(bytes);
  if (actual !== meta.sha256)
    throw new HubError(
      "REGISTRY_INVALID",
      `registry snapshot ${file} does not match its recorded sha256 (${meta.sha256}, found ${actual}): ${origin === "updated" ? "run `acphub agents registry update`, or delete that folder to use the shipped snapshot" : "the package is damaged; reinstall acphub"}`,
    );
  return {
    registry: parseRegistry(bytes.toString("utf8"), file),
    meta,
    origin,
    dir,
  };
}

// The registry in use: the refreshed one when there is one, else the shipped snapshot.
export function loadRegistry(stateDir: string): LoadedRegistry {
  const updated = updatedSnapshotDir(stateDir);
  if (existsSync(join(updated, "snapshot.json")))
    return readSnapshot(updated, "updated");
  return readSnapshot(SHIPPED_SNAPSHOT_DIR, "shipped");
}

// Fetches the registry at `url`, checks it whole, and only then replaces the stored snapshot
// (written beside it and renamed, so a failure at any point keeps the old one).
export async function refreshRegistry(
  url: string,
  stateDir: string,
  signal: AbortSignal,
): Promise<LoadedRegistry> {
  const bytes = await fetchBytes(url, MAX_REGISTRY_BYTES, signal, "registry");
  const registry = parseRegistry(bytes.toString("utf8"), url);
  const dir = updatedSnapshotDir(stateDir);
  mkdirSync(dir, { recursive: true });
  const hash = sha256(bytes);
  const meta: SnapshotMeta = {
    date: new Date().toISOString(),
    source: url,
    file: `registry-${hash.slice(0, 16)}.json`,
    sha256: hash,
  };
  // The registry under a name of its own first; the meta's rename is the one switch-over.
  writeFileSync(join(dir, meta.file), bytes);
  const staged = join(dir, `snapshot.json.${randomBytes(4).toString("hex")}`);
  writeFileSync(staged, JSON.stringify(meta, null, 2) + "\n");
  renameSync(staged, join(dir, "snapshot.json"));
  for (const name of readdirSync(dir))
    if (/^registry-[0-9a-f]{16}\.json$/.test(name) && name !== meta.file)
      rmSync(join(dir, name), { force: true });
  return { registry, meta, origin: "updated", dir };
}
