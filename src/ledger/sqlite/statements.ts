// The prepared statements of the SQLite ledger, prepared once per connection.
import type Database from "better-sqlite3";

const SQL = {
  insertSession: `INSERT INTO sessions (id, agent, cwd, title, created_at, updated_at, state, agent_session_id, request, settings, forked_from)
       VALUES (@id, @agent, @cwd, @title, @createdAt, @updatedAt, @state, @agentSessionId, @request, @settings, @forkedFrom)`,
  saveSettings: "UPDATE sessions SET settings = ? WHERE id = ?",
  getSession: "SELECT * FROM sessions WHERE id = ?",
  deleteSession: "DELETE FROM sessions WHERE id = ?",
  countSessions: "SELECT COUNT(*) AS n FROM sessions",
  oldestSessions:
    "SELECT id FROM sessions WHERE id != ? ORDER BY updated_at ASC, id ASC LIMIT ?",
  expired: "SELECT id FROM sessions WHERE updated_at < ?",
  counters: "SELECT next_seq, event_count, bytes FROM sessions WHERE id = ?",
  setCounters: `UPDATE sessions SET next_seq = @next_seq, event_count = @event_count, bytes = @bytes,
         updated_at = @at, incomplete = incomplete OR @trimmed WHERE id = @id`,
  insertEvent:
    "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES (?, ?, ?, ?, ?, ?)",
  read: `SELECT seq, kind, payload, at FROM events
       WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
  oldestEvents:
    "SELECT seq, bytes FROM events WHERE session_id = ? ORDER BY seq LIMIT ?",
  deleteEventsUpTo: "DELETE FROM events WHERE session_id = ? AND seq <= ?",
  deleteRange:
    "DELETE FROM events WHERE session_id = ? AND seq >= ? AND seq < ?",
  rewriteEvent:
    "UPDATE events SET payload = ?, bytes = ? WHERE session_id = ? AND seq = ?",
  recount: `UPDATE sessions SET event_count = (SELECT COUNT(*) FROM events WHERE session_id = @id),
         bytes = (SELECT COALESCE(SUM(bytes), 0) FROM events WHERE session_id = @id) WHERE id = @id`,
  copyEvents: `INSERT INTO events (session_id, seq, kind, payload, bytes, at)
       SELECT ?, seq, kind, payload, bytes, at FROM events WHERE session_id = ? AND seq <= ?`,
  afterCopy: `UPDATE sessions SET
         event_count = (SELECT COUNT(*) FROM events WHERE session_id = @id),
         bytes = (SELECT COALESCE(SUM(bytes), 0) FROM events WHERE session_id = @id),
         next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = @id),
         incomplete = @incomplete
       WHERE id = @id`,
};

export type Statements = Record<keyof typeof SQL, Database.Statement>;

// Prepares every statement the ledger runs more than once.
export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(
    Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Statements;
}
