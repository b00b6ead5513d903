// Writes one group-commit batch in one SQLite transaction: per-session counters read once, every
// event inserted, counters written once, the caps applied; then each append is settled.
import type Database from "better-sqlite3";
import type { LedgerCaps } from "../caps.js";
import type { PendingEvent } from "../group-commit.js";
import type { Statements } from "./statements.js";

interface Counters {
  next_seq: number;
  event_count: number;
  bytes: number;
  trimmed: boolean;
  at: number;
}

// Inserts the batch; returns the seq of each event (undefined: its session does not exist).
export function writeBatch(
  db: Database.Database,
  stmt: Statements,
  caps: LedgerCaps,
  batch: PendingEvent[],
): (number | undefined)[] {
  return db
    .transaction(() => {
      const touched = new Map<string, Counters | undefined>();
      const seqs = batch.map((event) => {
        if (!touched.has(event.sessionId)) {
          const row = stmt.counters.get(event.sessionId) as
            Counters | undefined;
          touched.set(
            event.sessionId,
            row && { ...row, trimmed: false, at: 0 },
          );
        }
        const c = touched.get(event.sessionId);
        if (!c) return undefined;
        const seq = c.next_seq++;
        c.event_count += 1;
        c.bytes += event.bytes;
        c.at = event.at;
        stmt.insertEvent.run(
          event.sessionId,
          seq,
          event.kind,
          event.text,
          event.bytes,
          event.at,
        );
        return seq;
      });
      for (const [id, c] of touched) {
        if (!c) continue;
        if (
          c.event_count > caps.maxEventsPerSession ||
          c.bytes > caps.maxBytesPerSession
        )
          trim(stmt, caps, id, c);
        stmt.setCounters.run({ ...c, id, trimmed: c.trimmed ? 1 : 0 });
      }
      return seqs;
    })
    .immediate();
}

// Drops the oldest events until the session is within its caps (never its newest event).
function trim(
  stmt: Statements,
  caps: LedgerCaps,
  id: string,
  c: Counters,
): void {
  while (
    c.event_count > 1 &&
    (c.event_count > caps.maxEventsPerSession ||
      c.bytes > caps.maxBytesPerSession)
  ) {
    const over = Math.max(1, c.event_count - caps.maxEventsPerSession);
    const rows = stmt.oldestEvents.all(id, over + 64) as {
      seq: number;
      bytes: number;
    }[];
    let lastSeq = -1;
    for (const row of rows.slice(0, -1)) {
      if (
        c.event_count <= caps.maxEventsPerSession &&
        c.bytes <= caps.maxBytesPerSession
      )
        break;
      c.event_count -= 1;
      c.bytes -= row.bytes;
      lastSeq = row.seq;
    }
    if (lastSeq < 0) break;
    stmt.deleteEventsUpTo.run(id, lastSeq);
    c.trimmed = true;
  }
}
