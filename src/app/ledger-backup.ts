// `acphub ledger backup FILE` and `acphub ledger restore FILE` (issue 38): a SQLite ledger copied
// whole — online, while `acphub serve` runs — and put back into a state folder no hub runs on.
// A PostgreSQL ledger is PostgreSQL's to back up: the commands say the pg_dump/pg_restore lines.
// What the ledger does not hold is said, not silently left behind: the secrets key.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { AppContext } from "../config/context.js";
import { isPostgresUrl } from "../ledger/open.js";
import {
  checkLedgerFile,
  copyLedgerFile,
  type LedgerFileSummary,
} from "../ledger/sqlite/sqlite-backup.js";
import { HubError } from "../shared/errors.js";
import { runningServe } from "./serve-marker.js";
import { ledgerUrl } from "./wiring.js";

/** What a backup or a restore did, and what the operator must still do. */
export interface LedgerCopy extends LedgerFileSummary {
  from: string;
  to: string;
  /** Lines for the operator (the secrets key, logins). */
  notes: string[];
}

/** The per-user secrets' key file (issue 36) beside the ledger; not in the ledger. */
const SECRETS_KEY = "secrets.key";

// Backs the state folder's SQLite ledger up into `file` (refusing to replace one unless forced).
export async function backupLedger(
  ctx: AppContext,
  file: string,
  force = false,
): Promise<LedgerCopy> {
  const source = sqliteLedgerOf(ctx, "backup", file);
  const to = resolve(file);
  if (!existsSync(source))
    throw new HubError("USAGE", `no ledger at ${source}: nothing to back up`);
  if (to === resolve(source) || to.startsWith(`${resolve(source)}-`))
    throw new HubError(
      "USAGE",
      `${to} is the ledger itself: back it up into another file`,
    );
  if (existsSync(to) && !force)
    throw new HubError(
      "USAGE",
      `${to} already exists: give --force to replace it, or another file`,
    );
  if (!existsSync(dirname(to)))
    throw new HubError("USAGE", `no such folder: ${dirname(to)}`);
  const summary = await copyLedgerFile(source, to);
  return { ...summary, from: source, to, notes: keyNotes(ctx, "backup") };
}

// Restores a backup into the state folder's ledger: no hub may run on it, an existing ledger is
// replaced only when forced, and the file must be an acphub ledger this acphub can read.
export async function restoreLedger(
  ctx: AppContext,
  file: string,
  force = false,
): Promise<LedgerCopy> {
  const target = sqliteLedgerOf(ctx, "restore", file);
  const from = resolve(file);
  const serving = runningServe(ctx.paths.stateDir);
  if (serving)
    throw new HubError(
      "USAGE",
      `acphub serve (pid ${serving.pid}, ${serving.url}) runs on ${ctx.paths.stateDir}: stop it before restoring its ledger`,
    );
  checkLedgerFile(from);
  if (existsSync(target) && !force)
    throw new HubError(
      "USAGE",
      `${target} already exists: give --force to replace it (its sessions, users and shares are lost), or restore into a new state folder (ACPHUB_HOME)`,
    );
  mkdirSync(dirname(target), { recursive: true });
  const staged = `${target}.restoring`;
  const summary = await copyLedgerFile(from, staged);
  // The old ledger's write-ahead log must not be applied to the restored file.
  rmSync(`${target}-wal`, { force: true });
  rmSync(`${target}-shm`, { force: true });
  renameSync(staged, target);
  return { ...summary, from, to: target, notes: keyNotes(ctx, "restore") };
}

// The state folder's SQLite ledger file; for PostgreSQL, the refusal with what to run instead.
function sqliteLedgerOf(
  ctx: AppContext,
  what: "backup" | "restore",
  file: string,
): string {
  const where = ledgerUrl(ctx);
  if (!isPostgresUrl(where)) return where;
  const url = shownUrl(where);
  const line =
    what === "backup"
      ? `pg_dump --format=custom --file=${file} "${url}"`
      : `pg_restore --clean --if-exists --no-owner --dbname="${url}" ${file}`;
  throw new HubError(
    "USAGE",
    `the ledger is PostgreSQL: acphub ledger ${what} is for SQLite. Run instead:\n  ${line}\n(see docs/ledger.md, "Backup and restore")`,
  );
}

// A PostgreSQL URL without its password (given by PGPASSWORD or ~/.pgpass instead).
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "";
    return u.toString().replace(/:@/, "@");
  } catch {
    return url;
  }
}

// What the ledger does not hold, said where the operator reads it.
function keyNotes(ctx: AppContext, what: "backup" | "restore"): string[] {
  const key = join(ctx.paths.stateDir, SECRETS_KEY);
  const notes =
    what === "backup"
      ? existsSync(key)
        ? [
            `keep ${key} with this backup (store it apart, safely): users' secrets in the ledger are encrypted with it and cannot be read without it`,
          ]
        : [
            `keep the secrets key with this backup (${SECRETS_KEY} in the state folder, or ACPHUB_SECRETS_KEY): the ledger holds users' secrets encrypted, not the key`,
          ]
      : existsSync(key)
        ? []
        : [
            `copy the ${SECRETS_KEY} kept with the backup into ${ctx.paths.stateDir} (or set ACPHUB_SECRETS_KEY) before starting the hub, or users' secrets cannot be read`,
          ];
  if (what === "restore")
    notes.push(
      "users log in with their tokens as before; browsers log in again (web logins are not in the ledger)",
    );
  return notes;
}
