// A SQLite ledger session's rows in the log (`events` and `event_journal`) and their stored
// bytes, read on a connection of the test's own.
import Database from "better-sqlite3";

export function logged(
  path: string,
  id: string,
): { eventCount: number; bytes: number } {
  const db = new Database(path, { readonly: true });
  const count = (table: string) =>
    db
      .prepare(
        `SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS b FROM ${table} WHERE session_id = ?`,
      )
      .get(id) as { n: number; b: number };
  const [events, journal] = [count("events"), count("event_journal")];
  db.close();
  return { eventCount: events.n + journal.n, bytes: events.b + journal.b };
}
