// Schema 6's fill: the usage of every turn the ledger's sessions recorded before the usage table
// existed, written into it once, so that `acphub usage` and budgets read the same totals after
// the upgrade as before it.
import type Database from "better-sqlite3";
import {
  FILL_WHERE,
  insertUsage,
  usageArgs,
  usageOfEvents,
  type FillSession,
} from "../usage-table.js";

// Both ends of the log (events, then the journal), the events the fill reads only.
const WHERE = `session_id = ? AND ${FILL_WHERE("payload")}`;
const READ = `SELECT seq, kind, payload AS text, at FROM events WHERE ${WHERE}
  UNION ALL SELECT seq, kind, payload AS text, at FROM event_journal WHERE ${WHERE} ORDER BY seq`;

// Writes the rows of each session's turns (inside the migration's transaction).
export function fillUsage(db: Database.Database): void {
  const sessions = db
    .prepare("SELECT id, agent, created_at AS createdAt FROM sessions")
    .all() as FillSession[];
  const read = db.prepare(READ);
  const insert = db.prepare(insertUsage("usage", () => "?"));
  for (const session of sessions) {
    const events = read.all(session.id, session.id) as {
      seq: number;
      kind: string;
      text: string;
      at: number;
    }[];
    for (const row of usageOfEvents(session, events))
      insert.run(...usageArgs(row));
  }
}
