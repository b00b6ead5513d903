// A replay's rows for EventStore.readReplayRows, on SQLite. The plain updates between two other
// rows are joined into frames by SQLite, one range at a time: first the few rows that are not
// plain updates (a prompt, a notice, a merged run…), in seq order, then one aggregate per range
// between them. Each query reads its table in index order; grouping the whole session at once
// (a window over every row, then GROUP BY) made SQLite sort the session's rows three times, which
// cost more than the JavaScript it replaced. Both queries run in one read transaction: a row
// appended by another process between them cannot land in a range read as plain.
import type Database from "better-sqlite3";

/** A plain update: an `update` whose text is a non-empty JSON object's (`{"` … `}`) with no
 *  chunk list (not `]}` at its end). Its last bytes are read from the text as a BLOB: `length`
 *  and `substr` from the end of a TEXT count its characters from the start, which made this test
 *  half the cost of reading a 5,000-update session (2.8 → 1.4 ms; issue 39, thirteenth round). */
const PLAIN = `kind = 'update' AND substr(payload, 1, 2) = '{"'
  AND substr(CAST(payload AS BLOB), -1) = X'7D' AND substr(CAST(payload AS BLOB), -2, 1) <> X'5D'`;

// The same selection from both ends of the log (./journal.ts: a row is in exactly one).
const BOTH = (columns: string, where: string) =>
  `SELECT ${columns} FROM events WHERE ${where}
   UNION ALL SELECT ${columns} FROM event_journal WHERE ${where}`;

const BREAKS = `SELECT seq, kind, payload, at FROM (${BOTH(
  "seq, kind, payload, at",
  `session_id = @id AND NOT (${PLAIN})`,
)}) ORDER BY seq`;

// The range's rows come merged from the two tables in seq order (each read in its index's
// order: no sort), and group_concat joins them in the order it is given; `ORDER BY seq` inside
// group_concat would sort them all again in a temporary B-tree. Exported for its test.
export const FRAMES = `SELECT group_concat(@head || substr(payload, 2) || '}' || char(10), '')
  FROM (${BOTH("seq, payload", "session_id = @id AND seq > @after AND seq < @before")}
    ORDER BY seq)`;

export class ReplayRows {
  private readonly breaks: Database.Statement;
  private readonly frames: Database.Statement;
  private readonly read: (id: string, head: string) => unknown[][];

  constructor(db: Database.Database) {
    this.breaks = db.prepare(BREAKS).raw();
    this.frames = db.prepare(FRAMES).pluck();
    this.read = db.transaction((id: string, head: string) =>
      this.grouped(id, head),
    );
  }

  /** Rows [seq, kind, text, at, frames] as readReplayRows gives them, in one read transaction. */
  rows(sessionId: string, head: string): unknown[][] {
    return this.read(sessionId, head);
  }

  // The leading range's frames (a row of nulls), then each other row with the frames after it.
  // Two rows with consecutive seqs have no range between them: no query for it.
  private grouped(id: string, head: string): unknown[][] {
    const rows = this.breaks.all({ id }) as unknown[][];
    const out: unknown[][] = [];
    let after = 0;
    let row: unknown[] = [null, null, null, null];
    for (let i = 0; i <= rows.length; i++) {
      const next = rows[i];
      const before = next ? Number(next[0]) : Number.MAX_SAFE_INTEGER;
      const frames =
        before > after + 1
          ? (this.frames.get({ id, head, after, before }) as string | null)
          : null;
      if (row[0] !== null || frames) out.push([...row, frames]);
      if (!next) break;
      row = next;
      after = before;
    }
    return out;
  }
}
