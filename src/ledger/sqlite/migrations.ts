// Schema migrations of the SQLite ledger, applied in order and tracked by `PRAGMA user_version`.
// A ledger written by an older acphub is migrated on open; a newer one is refused.
import type Database from "better-sqlite3";
import { HubError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logger.js";
import { usersSchemaSql } from "../user-store.js";
import { usageTableSql } from "../usage-table.js";
import { secretsSchemaSql } from "../secret-store.js";
import { sessionRowsView } from "./counts.js";
import { fillUsage } from "./usage-fill.js";

const MIGRATIONS: string[] = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     cwd TEXT NOT NULL,
     title TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     state TEXT NOT NULL,
     agent_session_id TEXT,
     request TEXT NOT NULL,
     incomplete INTEGER NOT NULL DEFAULT 0,
     event_count INTEGER NOT NULL DEFAULT 0,
     bytes INTEGER NOT NULL DEFAULT 0,
     next_seq INTEGER NOT NULL DEFAULT 1
   );
   CREATE INDEX sessions_cwd_updated ON sessions (cwd, updated_at DESC);
   CREATE INDEX sessions_updated ON sessions (updated_at DESC);
   CREATE TABLE events (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     kind TEXT NOT NULL,
     payload TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     at INTEGER NOT NULL,
     PRIMARY KEY (session_id, seq)
   ) WITHOUT ROWID;`,
  // 2 (issue 14): the session's modes, models and config options as last reported (JSON), and
  // the session it was forked from.
  `ALTER TABLE sessions ADD COLUMN settings TEXT;
   ALTER TABLE sessions ADD COLUMN forked_from TEXT;`,
  // 3: an update's payload is exactly the session/update params without sessionId, so replay
  // sends the stored text as it is: its notification metadata moves from `meta` to `_meta`.
  `UPDATE events
     SET payload = json_remove(json_set(payload, '$._meta', json(json_extract(payload, '$.meta'))), '$.meta')
   WHERE kind = 'update' AND json_valid(payload) AND json_type(payload, '$.meta') = 'object';`,
  // 4 (issue 22): users, their login codes, who may see which session, and the audit log.
  usersSchemaSql("", "INTEGER PRIMARY KEY AUTOINCREMENT", "TEXT"),
  // 5 (issue 24): the hot end of the event log, clustered by a global rowid so that a group
  // commit over many sessions dirties one or two pages, not one per session (journal.ts).
  `CREATE TABLE event_journal (
     id INTEGER PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     kind TEXT NOT NULL,
     payload TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     at INTEGER NOT NULL
   );`,
  // 6 (issue 34): one row per turn that ran, apart from the events: deleting a session no
  // longer gives its usage back. Filled from the events of the sessions held (FILLS below).
  usageTableSql("usage", "INTEGER PRIMARY KEY AUTOINCREMENT", "REAL"),
  // 7 (issue 36): each hub user's secrets, sealed with a key the ledger never holds.
  secretsSchemaSql(""),
  // 8 (issue 39): a session's
  // journal rows found by an index, so that reading a session, moving its rows at its turn's
  // end and dropping them never scan the other sessions' rows (a scan per session per turn
  // made the cost per update grow with the number of sessions).
  `CREATE INDEX IF NOT EXISTS event_journal_session ON event_journal (session_id, seq);`,
  // 9 (issue 39): a session's counters on its row are a checkpoint — exact for its events
  // before `next_seq` — written with `updated_at` (at most once a second while it streams,
  // ./updated-at.ts), no longer with every batch (which rewrote the whole ~1 KB row). The
  // events from `next_seq` on are counted at each read (./counts.ts). An older acphub would
  // take the checkpoint for the counters: the version refuses it.
  sessionRowsView,
  // 10 (issue 39): the spool, a group-commit batch as one row until its events are folded into
  // the log, merged (./spool.ts). An older acphub would not see the rows: the version refuses it.
  `CREATE TABLE IF NOT EXISTS event_spool (
     id INTEGER PRIMARY KEY,
     body TEXT NOT NULL
   );`,
  // 11 (issue 39): `events` a rowid table, its primary key (session_id, seq) an index of its
  // own. WITHOUT ROWID, its key was the whole row: SQLite compares keys as whole records, and a
  // merged reply's row runs to overflow pages, all read at each comparison — a seek cost 35
  // times more in a 300 MB ledger (a session's record, a compaction's each row). In both tables
  // of the log the text comes last: a column after it was reached through its overflow pages
  // (the counters' `SUM(bytes)` over a session's tail, 11 times dearer over merged rows).
  `DROP VIEW IF EXISTS session_rows;
   CREATE TABLE events_v11 (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     kind TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     at INTEGER NOT NULL,
     payload TEXT NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   INSERT INTO events_v11 (session_id, seq, kind, bytes, at, payload)
     SELECT session_id, seq, kind, bytes, at, payload FROM events ORDER BY session_id, seq;
   DROP TABLE events;
   ALTER TABLE events_v11 RENAME TO events;
   CREATE TABLE event_journal_v11 (
     id INTEGER PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     kind TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     at INTEGER NOT NULL,
     payload TEXT NOT NULL
   );
   INSERT INTO event_journal_v11 (id, session_id, seq, kind, bytes, at, payload)
     SELECT id, session_id, seq, kind, bytes, at, payload FROM event_journal ORDER BY id;
   DROP TABLE event_journal;
   ALTER TABLE event_journal_v11 RENAME TO event_journal;
   CREATE INDEX event_journal_session ON event_journal (session_id, seq);
   ${sessionRowsView}`,
];

/** The versions whose step copies the event log: said before and after, as they take a while
 *  on a large ledger (about 3 s per GB here). */
const COPIES_THE_LOG = new Set([11]);

/** A copy of a ledger this large (about a second's) is said at `warn`, the level shown by
 *  default: a start-up that seems to hang says why. */
export const LOUD_COPY_BYTES = 256 * 1024 * 1024;

/** Work in TypeScript a version needs after its statements, in the same transaction. */
const FILLS: Record<number, (db: Database.Database) => void> = {
  6: fillUsage,
};

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The statements of each version, for tests that build an older ledger. */
export function migrationSql(version: number): string {
  return MIGRATIONS[version - 1] ?? "";
}

// Brings the database to the newest schema; refuses one written by a newer acphub.
export function migrate(
  db: Database.Database,
  file: string,
  logger?: Logger,
  loudAbove = LOUD_COPY_BYTES,
): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new HubError(
      "LEDGER_UNAVAILABLE",
      `ledger ${file} was written by a newer acphub (schema ${current}; this one knows up to ${SCHEMA_VERSION}): upgrade acphub or point it at another state folder`,
    );
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    const copies = current > 0 && COPIES_THE_LOG.has(version + 1); // (a new file: none)
    const started = Date.now();
    const mb = copies ? Math.round(fileBytes(db) / 2 ** 20) : 0;
    const say = mb * 2 ** 20 >= loudAbove ? "warn" : "info";
    if (copies)
      logger?.[say](
        { file, schema: version + 1, mb },
        `ledger: upgrading the event log of ${mb} MB (copied once, at about 3 s per GB: acphub starts when it is done)`,
      );
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      FILLS[version + 1]?.(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
    if (copies)
      logger?.[say](
        { file, schema: version + 1, ms: Date.now() - started },
        "ledger: event log upgraded",
      );
  }
}

// The database's size in bytes: its pages, free ones included (the file's size).
function fileBytes(db: Database.Database): number {
  const pages = db.pragma("page_count", { simple: true }) as number;
  return pages * (db.pragma("page_size", { simple: true }) as number);
}
