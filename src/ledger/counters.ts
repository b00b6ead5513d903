// The per-session counters a batch write keeps in memory while it runs: read once per session,
// a sequence number given to each event in call order, and written once at the end. Both engines
// write batches with these; only how rows are read, inserted and written differs.
import type { LedgerCaps } from "./caps.js";
import type { PendingEvent } from "./group-commit.js";

export interface Counters {
  nextSeq: number;
  eventCount: number;
  bytes: number;
  /** When the session was last written (the time of its last event in the batch); 0: untouched. */
  at: number;
}

/** The counters of a session row as read (drivers give numbers or numeric strings). */
export function countersOf(row: Record<string, unknown>): Counters {
  return {
    nextSeq: Number(row["next_seq"]),
    eventCount: Number(row["event_count"]),
    bytes: Number(row["bytes"]),
    at: 0,
  };
}

// Gives each event the next seq of its session and counts it; `insert` stores it. Undefined
// for an event whose session has no counters (it does not exist).
function assignSeqs(
  batch: PendingEvent[],
  counters: Map<string, Counters>,
  insert: (event: PendingEvent, seq: number) => void,
): (number | undefined)[] {
  return batch.map((event) => {
    const c = counters.get(event.sessionId);
    if (!c) return undefined;
    const seq = c.nextSeq++;
    c.eventCount += 1;
    c.bytes += event.bytes;
    c.at = event.at;
    insert(event, seq);
    return seq;
  });
}

/** A batch counted against its sessions' rows (id and counters): each event's seq, in call
 * order (`insert` stores it), and the sessions written with their new counters. */
export function countBatch(
  batch: PendingEvent[],
  rows: Record<string, unknown>[],
  insert: (event: PendingEvent, seq: number) => void,
): { seqs: (number | undefined)[]; written: [string, Counters][] } {
  const counters = new Map(rows.map((r) => [String(r["id"]), countersOf(r)]));
  return countInto(batch, counters, insert);
}

/** The same over counters already at hand (a writer's own, kept between batches): they are
 * advanced in place; `at` is reset first so that only the batch's sessions count as written. */
export function countInto(
  batch: PendingEvent[],
  counters: Map<string, Counters>,
  insert: (event: PendingEvent, seq: number) => void,
): { seqs: (number | undefined)[]; written: [string, Counters][] } {
  for (const c of counters.values()) c.at = 0;
  const seqs = assignSeqs(batch, counters, insert);
  return { seqs, written: [...counters].filter(([, c]) => c.at > 0) };
}

/** True when a session holds more events or bytes than its caps allow. */
export function overCaps(c: Counters, caps: LedgerCaps): boolean {
  return (
    c.eventCount > caps.maxEventsPerSession || c.bytes > caps.maxBytesPerSession
  );
}
