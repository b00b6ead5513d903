// A SQLite ledger copied whole, for `acphub ledger backup|restore`: SQLite's online backup (one
// step, under one read transaction, so the copy is the database at one commit — sessions, both
// ends of the event log (`events` and `event_journal`), users, shares and usage together) into a
// temporary file beside the target, made a plain single file (no -wal), checked, then renamed
// into place: a crash leaves the old file or the new one, never half of one.
import Database from "better-sqlite3";
import { existsSync, renameSync, rmSync } from "node:fs";
import { HubError } from "../../shared/errors.js";
import { SCHEMA_VERSION } from "./migrations.js";

/** What a ledger file holds, as a backup or a restore reports it. */
export interface LedgerFileSummary {
  schema: number;
  sessions: number;
  users: number;
}

/** The tables every acphub SQLite ledger has had since schema 1. */
const CORE_TABLES = ["sessions", "events"];

// Copies `source` (a ledger, possibly in use by `acphub serve`) to `target` atomically.
export async function copyLedgerFile(
  source: string,
  target: string,
): Promise<LedgerFileSummary> {
  const tmp = `${target}.${process.pid}.tmp`;
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // The first step opens the copy, the second copies every page at once.
    await db.backup(tmp, { progress: () => 0x7fffffff });
  } catch (error) {
    rmSync(tmp, { force: true });
    const why = error instanceof Error ? error.message : String(error);
    throw new HubError(
      "LEDGER_UNAVAILABLE",
      `backup of ${source} failed: ${why}`,
      { cause: error },
    );
  } finally {
    db.close();
  }
  try {
    const summary = checkLedgerFile(tmp, true);
    renameSync(tmp, target);
    return summary;
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-wal`, { force: true });
    rmSync(`${tmp}-shm`, { force: true });
  }
}

// Refuses a file that is not an acphub ledger, is damaged, or was written by a newer acphub;
// `plain` makes it one self-contained file (rollback journal) first.
export function checkLedgerFile(
  file: string,
  plain = false,
): LedgerFileSummary {
  if (!existsSync(file)) throw new HubError("USAGE", `no such file: ${file}`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: !plain, fileMustExist: true });
  } catch (error) {
    throw notLedger(file, error);
  }
  try {
    if (plain) db.pragma("journal_mode = DELETE");
    return summaryOf(db, file);
  } catch (error) {
    throw error instanceof HubError ? error : notLedger(file, error);
  } finally {
    db.close();
  }
}

// The schema, sessions and users of an open ledger; refusals for anything else.
function summaryOf(db: Database.Database, file: string): LedgerFileSummary {
  const tables = new Set(
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all() as string[],
  );
  const schema = db.pragma("user_version", { simple: true }) as number;
  if (schema < 1 || CORE_TABLES.some((t) => !tables.has(t)))
    throw notLedger(file);
  if (schema > SCHEMA_VERSION)
    throw new HubError(
      "USAGE",
      `${file} was written by a newer acphub (ledger schema ${schema}; this one knows up to ${SCHEMA_VERSION}): restore it with that acphub or a newer one`,
    );
  const check = db.pragma("quick_check", { simple: true }) as string;
  if (check !== "ok")
    throw new HubError("USAGE", `${file} is damaged: ${check}`);
  const count = (table: string) =>
    tables.has(table)
      ? Number(db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get())
      : 0;
  return { schema, sessions: count("sessions"), users: count("users") };
}

function notLedger(file: string, cause?: unknown): HubError {
  return new HubError(
    "USAGE",
    `${file} is not an acphub ledger (a SQLite file with acphub's sessions and events tables)`,
    cause === undefined ? {} : { cause },
  );
}
