// The prepared statements of the SQLite ledger's event side, prepared once per connection (the
// session side is built by ../core.ts and prepared on first use).
import type Database from "better-sqlite3";

// A session's rows from both ends of the log, events then journal (./journal.ts); each
// argument is given twice, once per table.
const BOTH = (where: string, order: string) =>
  `SELECT seq, kind, payload, at FROM events WHERE ${where}
   UNION ALL SELECT seq, kind, payload, at FROM event_journal WHERE ${where} ${order}`;
const COLUMNS = "session_id, seq, kind, payload, bytes, at";

const SQL = {
  counters:
    "SELECT id, next_seq, event_count, bytes FROM session_rows WHERE id = ?",
  sessionRow: "SELECT * FROM session_rows WHERE id = ?",
  setCounters: `UPDATE sessions SET next_seq = ?, event_count = ?, bytes = ?, updated_at = ?,
         incomplete = incomplete OR ? WHERE id = ?`,
  setCountsOnly: `UPDATE sessions SET next_seq = ?, event_count = ?, bytes = ?,
         incomplete = incomplete OR ? WHERE id = ?`,
  insertEvent: `INSERT INTO event_journal (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
  read: BOTH("session_id = ? AND seq > ? AND seq <= ?", "ORDER BY seq"),
  pageUp: BOTH(
    "session_id = ? AND seq > ? AND seq < ?",
    "ORDER BY seq LIMIT ?",
  ),
  pageDown: BOTH(
    "session_id = ? AND seq > ? AND seq < ?",
    "ORDER BY seq DESC LIMIT ?",
  ),
  oldestEvents:
    "SELECT seq, bytes FROM events WHERE session_id = ? ORDER BY seq LIMIT ?",
  deleteEventsUpTo: "DELETE FROM events WHERE session_id = ? AND seq <= ?",
  deleteRange:
    "DELETE FROM events WHERE session_id = ? AND seq >= ? AND seq < ?",
  rewriteEvent:
    "UPDATE events SET payload = ?, bytes = ? WHERE session_id = ? AND seq = ?",
  journalCount: "SELECT COUNT(*) FROM event_journal",
  moveSession: `INSERT INTO events (${COLUMNS})
       SELECT ${COLUMNS} FROM event_journal WHERE session_id = ? ORDER BY seq`,
  dropSession: "DELETE FROM event_journal WHERE session_id = ?",
  moveAll: `INSERT INTO events (${COLUMNS})
       SELECT ${COLUMNS} FROM event_journal ORDER BY session_id, seq`,
  dropAll: "DELETE FROM event_journal",
  journalFirst: "SELECT MIN(id) FROM event_journal",
  moveUpTo: `INSERT INTO events (${COLUMNS})
       SELECT ${COLUMNS} FROM event_journal WHERE id <= ? ORDER BY session_id, seq`,
  dropUpTo: "DELETE FROM event_journal WHERE id <= ?",
};

export type Statements = Record<keyof typeof SQL, Database.Statement>;

// Prepares every statement the ledger runs more than once.
export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(
    Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Statements;
}
