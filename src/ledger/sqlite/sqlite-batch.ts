// What the SQLite ledger's writes share: the connection and its parts, and a session's counters
// written after its events were folded into the log (./spool.ts), with its caps applied.
import type Database from "better-sqlite3";
import type { LedgerCaps } from "../caps.js";
import { overCaps, type Counters } from "../counters.js";
import type { CounterCache } from "./counter-cache.js";
import type { Journal } from "./journal.js";
import type { Statements } from "./statements.js";
import type { UpdatedAtStamps } from "./updated-at.js";

/** What a batch and a fold write through. */
export interface BatchWriter {
  db: Database.Database;
  stmt: Statements;
  caps: LedgerCaps;
  counters: CounterCache;
  journal: Journal;
  stamps: UpdatedAtStamps;
}

// A session's counters after a fold, trimmed to its caps first. They go on the session's
// row (its checkpoint, ./counts.ts) with its `updated_at` when that is due (./updated-at.ts),
// or after a trim (which deleted events counted before); otherwise the row is left alone: the
// journal's new rows are counted by every reader until the next checkpoint.
export function writeCounters(w: BatchWriter, id: string, c: Counters): void {
  const trimmed = overCaps(c, w.caps) && trim(w, id, c) ? 1 : 0;
  if (w.stamps.due(id, c))
    w.stmt.setCounters.run(c.nextSeq, c.eventCount, c.bytes, c.at, trimmed, id);
  else if (trimmed)
    w.stmt.setCountsOnly.run(c.nextSeq, c.eventCount, c.bytes, trimmed, id);
}

// Drops the oldest events until the session is within its caps (never its newest event).
// True when any went. Its journal rows move first, so that the oldest are all in `events`.
function trim(w: BatchWriter, id: string, c: Counters): boolean {
  const { stmt, caps } = w;
  w.journal.moveSession(id);
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
