// Installs a registry agent's binary: downloads the archive into acphub's state folder (one
// folder per agent and version), checks its SHA-256 before anything is unpacked or run, unpacks
// it safely, and only then puts the version folder in place. Any failure leaves nothing behind.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { HubError } from "../shared/errors.js";
import { refuse, type ArchiveEntry } from "./archive-entry.js";
import { fetchBytes, sha256 } from "./fetch-bytes.js";
import type { BinaryTarget } from "./schema.js";
import { readTar } from "./tar.js";
import { isInside, safeSegments, unpackInto } from "./unpack.js";
import { readZip } from "./zip.js";

/** Agent archives are tens of megabytes; more than this is refused. */
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

export interface InstallRequest {
  stateDir: string;
  id: string;
  version: string;
  target: BinaryTarget;
  allowUnverified: boolean;
  signal: AbortSignal;
}

export interface InstalledBinary {
  dir: string;
  command: string;
  sha256: string;
  verified: boolean;
}

// Where an agent's versions live.
export function agentStateDir(stateDir: string, id: string): string {
  return join(stateDir, "agents", id);
}

// The reader for an archive, by its URL's ending, else by its first bytes.
function readArchive(url: string, bytes: Buffer): ArchiveEntry[] {
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith(".zip") || (bytes[0] === 0x50 && bytes[1] === 0x4b))
    return readZip(bytes);
  if (
    /\.(tar\.gz|tgz|tar)$/.test(path) ||
    (bytes[0] === 0x1f && bytes[1] === 0x8b)
  )
    return readTar(bytes);
  throw new HubError(
    "INSTALL_REFUSED",
    `archive ${url}: unsupported format (acphub unpacks .tar.gz, .tgz, .tar and .zip)`,
  );
}

// Refuses an unverifiable download unless the user said so.
function checkVerifiable(request: InstallRequest): void {
  if (request.target.sha256 || request.allowUnverified) return;
  throw new HubError(
    "INSTALL_REFUSED",
    `registry entry "${request.id}" ${request.version} gives no sha256 for its archive ${request.target.archive}: acphub will not run a download it cannot check. Add it anyway with --allow-unverified (the config entry will say so)`,
    { details: { id: request.id, archive: request.target.archive } },
  );
}

// The command's path in the unpacked folder; it must be a file inside it.
function commandIn(dir: string, cmd: string): string {
  const path = join(dir, ...safeSegments(cmd, `cmd ${cmd}`));
  if (
    !existsSync(path) ||
    !isInside(realpathSync.native(dir), realpathSync.native(path)) ||
    !statSync(path).isFile()
  )
    throw refuse(cmd, "the entry's cmd is not a file in the archive");
  chmodSync(realpathSync.native(path), statSync(path).mode | 0o500);
  return path;
}

// The archive's SHA-256, refused when it is not the one the registry gives.
function checkHash(bytes: Buffer, target: BinaryTarget): string {
  const actual = sha256(bytes);
  const expected = target.sha256?.toLowerCase();
  if (expected && actual !== expected)
    throw new HubError(
      "INSTALL_REFUSED",
      `archive ${target.archive} has sha256 ${actual}, the registry says ${expected}: deleted, nothing installed`,
      { details: { archive: target.archive, expected, actual } },
    );
  return actual;
}

// An agent's folder left empty by a failed first install goes too.
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}

// Downloads, checks, unpacks and puts in place one agent version; returns how to launch it.
export async function installBinary(
  request: InstallRequest,
): Promise<InstalledBinary> {
  checkVerifiable(request);
  const { archive, cmd } = request.target;
  safeSegments(cmd, `cmd ${cmd}`);
  const home = agentStateDir(request.stateDir, request.id);
  mkdirSync(home, { recursive: true });
  const staging = join(
    home,
    `.staging-${request.version}-${randomBytes(4).toString("hex")}`,
  );
  const archiveFile = `${staging}.archive`;
  try {
    const bytes = await fetchBytes(
      archive,
      MAX_ARCHIVE_BYTES,
      request.signal,
      "archive",
    );
    writeFileSync(archiveFile, bytes, { mode: 0o600 });
    const actual = checkHash(bytes, request.target);
    mkdirSync(staging, { mode: 0o755 });
    unpackInto(staging, readArchive(archive, bytes));
    commandIn(staging, cmd);
    const dir = join(home, request.version);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return {
      dir,
      command: join(dir, ...safeSegments(cmd)),
      sha256: actual,
      verified: request.target.sha256 !== undefined,
    };
  } finally {
    rmSync(archiveFile, { force: true });
    rmSync(staging, { recursive: true, force: true });
    removeIfEmpty(home);
    removeIfEmpty(dirname(home));
  }
}
