// The prepared statements of the SQLite ledger's event side, prepared once per connection (the
// session side is built by ../core.ts and prepared on first use).
import type Database from "better-sqlite3";

const SQL = {
  counters:
    "SELECT id, next_seq, event_count, bytes FROM sessions WHERE id = ?",
  setCounters: `UPDATE sessions SET next_seq = @nextSeq, event_count = @eventCount, bytes = @bytes,
         updated_at = @at, incomplete = incomplete OR @trimmed WHERE id = @id`,
  insertEvent:
    "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES (?, ?, ?, ?, ?, ?)",
  read: `SELECT seq, kind, payload, at FROM events
       WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
  pageUp: `SELECT seq, kind, payload, at FROM events
       WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?`,
  pageDown: `SELECT seq, kind, payload, at FROM events
       WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  oldestEvents:
    "SELECT seq, bytes FROM events WHERE session_id = ? ORDER BY seq LIMIT ?",
  deleteEventsUpTo: "DELETE FROM events WHERE session_id = ? AND seq <= ?",
  deleteRange:
    "DELETE FROM events WHERE session_id = ? AND seq >= ? AND seq < ?",
  rewriteEvent:
    "UPDATE events SET payload = ?, bytes = ? WHERE session_id = ? AND seq = ?",
  recount: `UPDATE sessions SET event_count = (SELECT COUNT(*) FROM events WHERE session_id = @id),
         bytes = (SELECT COALESCE(SUM(bytes), 0) FROM events WHERE session_id = @id) WHERE id = @id`,
};

export type Statements = Record<keyof typeof SQL, Database.Statement>;

// Prepares every statement the ledger runs more than once.
export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(
    Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Statements;
}
