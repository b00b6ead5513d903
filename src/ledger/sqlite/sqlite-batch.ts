// Writes one group-commit batch in one SQLite transaction: per-session counters read once, every
// event inserted, counters written once, the caps applied. The caller settles each append.
import type Database from "better-sqlite3";
import type { LedgerCaps } from "../caps.js";
import { countBatch, overCaps, type Counters } from "../counters.js";
import type { PendingEvent } from "../group-commit.js";
import type { Statements } from "./statements.js";

// Inserts the batch; returns the seq of each event (undefined: its session does not exist).
export function writeBatch(
  db: Database.Database,
  stmt: Statements,
  caps: LedgerCaps,
  batch: PendingEvent[],
): (number | undefined)[] {
  return db
    .transaction(() => {
      const rows = [...new Set(batch.map((e) => e.sessionId))]
        .map((id) => stmt.counters.get(id) as Record<string, unknown>)
        .filter((row) => row !== undefined);
      const { seqs, written } = countBatch(batch, rows, (e, seq) =>
        stmt.insertEvent.run(e.sessionId, seq, e.kind, e.text, e.bytes, e.at),
      );
      for (const [id, c] of written) {
        const trimmed = overCaps(c, caps) && trim(stmt, caps, id, c);
        stmt.setCounters.run({ ...c, id, trimmed: trimmed ? 1 : 0 });
      }
      return seqs;
    })
    .immediate();
}

// Drops the oldest events until the session is within its caps (never its newest event).
// True when any went.
function trim(
  stmt: Statements,
  caps: LedgerCaps,
  id: string,
  c: Counters,
): boolean {
  let trimmed = false;
  while (c.eventCount > 1 && overCaps(c, caps)) {
    const over = Math.max(1, c.eventCount - caps.maxEventsPerSession);
    const rows = stmt.oldestEvents.all(id, over + 64) as {
      seq: number;
      bytes: number;
    }[];
    let lastSeq = -1;
    for (const row of rows.slice(0, -1)) {
      if (!overCaps(c, caps)) break;
      c.eventCount -= 1;
      c.bytes -= row.bytes;
      lastSeq = row.seq;
    }
    if (lastSeq < 0) break;
    stmt.deleteEventsUpTo.run(id, lastSeq);
    trimmed = true;
  }
  return trimmed;
}
