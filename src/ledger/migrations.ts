// Schema migrations, applied in order and tracked by `PRAGMA user_version`.
import type Database from "better-sqlite3";

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
  // The session's modes, models and config options as last reported (JSON), and the session
  // it was forked from.
  `ALTER TABLE sessions ADD COLUMN settings TEXT;
   ALTER TABLE sessions ADD COLUMN forked_from TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

// Brings the database to the newest schema; refuses one written by a newer acphub.
export function migrate(db: Database.Database): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `ledger schema version ${current} is newer than this acphub understands (${SCHEMA_VERSION})`,
    );
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
