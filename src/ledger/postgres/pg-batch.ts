// Writes one group-commit batch as one statement, a call of the acphub_write_batch_v15 function
// (pg-batch-fn-v15.ts): one round trip, atomic on its own. It locks the sessions' rows, gives each
// event its seq, inserts the events (each session's runs of text chunks merged into one row
// here first, as a turn's compaction merges them), writes the counters, trims sessions past
// their caps, sends a NOTIFY per session (other acphub processes follow) and records the
// batch's id with its seqs (a retry after an ambiguous COMMIT returns those). In a cluster the
// events of a session another node holds the lease of are not written (fencing: a node cut off
// from the database past its lease must not append after the taker). Nothing is settled here:
// the caller settles.
import type { LedgerCaps } from "../caps.js";
import { planUpdates, storedRunText, type MergedRun } from "../compaction.js";
import { FENCED, type PendingEvent } from "../group-commit.js";
import { SEPARATOR } from "./pg-batch-fn.js";
import { FIRST_SEQ_MARK } from "./pg-batch-fn-v15.js";

/** The NOTIFY channel of committed batches (the function sends on it). */
export const CHANNEL = "acphub_events";

/** What the function's NOTIFY says: the writing process, a session and its last seq. */
export interface BatchNotice {
  instance: string;
  sessionId: string;
  seq: number;
}

// Reads a NOTIFY of the batch channel; undefined when it is not one.
export function readBatchNotice(payload: string): BatchNotice | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (!Array.isArray(value)) return undefined;
    const [instance, sessionId, seq] = value as unknown[];
    if (typeof instance !== "string" || typeof sessionId !== "string")
      return undefined;
    if (typeof seq !== "number") return undefined;
    return { instance, sessionId, seq };
  } catch {
    return undefined;
  }
}

/** A batch's identity: its id and acknowledged ids to delete. */
export interface BatchTag {
  id: string;
  forget: string[];
  /** The cluster node writing: sessions whose lease another node holds are fenced. */
  node?: string;
}

/** The batch call as a named prepared statement (parsed once per connection). */
export interface BatchCall {
  name: string;
  text: string;
  values: unknown[];
}

const CALL_TEXT = `SELECT acphub_write_batch_v15(${Array.from(
  { length: 19 },
  (_, i) => `$${i + 1}`,
).join(", ")}) AS firsts`;

/** A batch in the function's columns: per session (in order of first event) and per event. */
export interface Columns {
  sessions: string[];
  counts: number[];
  lasts: number[];
  which: number[];
  places: number[];
}

/** Each event's session (index from 1) and place in it; each session's events and last time. */
export function columnsOf(batch: PendingEvent[]): Columns {
  const index = new Map<string, number>();
  const c: Columns = {
    sessions: [],
    counts: [],
    lasts: [],
    which: new Array<number>(batch.length),
    places: new Array<number>(batch.length),
  };
  batch.forEach((e, i) => {
    let s = index.get(e.sessionId);
    if (s === undefined) {
      s = c.sessions.push(e.sessionId) - 1;
      index.set(e.sessionId, s);
      c.counts.push(0);
      c.lasts.push(0);
    }
    c.which[i] = s + 1;
    c.places[i] = c.counts[s]!++;
    c.lasts[s] = e.at;
  });
  return c;
}

/** The rows a batch stores, in batch order: per row its session (from 1), place (a merged
 * row's: its run's last event's), the first place of the run it merges (-1: none), kind, text,
 * bytes and time; per session the rows and their bytes. */
export interface StoredRows {
  which: number[];
  places: number[];
  firstPlaces: number[];
  kinds: string[];
  texts: string[];
  sizes: number[];
  ats: number[];
  rows: number[];
  totals: number[];
}

// Each session's runs of text chunks in the batch, by the place of the run's first event.
function runsOf(batch: PendingEvent[], c: Columns): Map<number, MergedRun>[] {
  const updates = c.sessions.map((): [number, string][] => []);
  batch.forEach((e, i) => {
    if (e.kind === "update")
      updates[c.which[i]! - 1]!.push([c.places[i]!, e.text]);
  });
  return updates.map(
    (rows) =>
      new Map(
        rows.length > 1 ? planUpdates(rows, 0).map((r) => [r.fromSeq, r]) : [],
      ),
  );
}

/** What `batch` stores: its events, each session's runs of text chunks merged into one row
 * (the merged text masked again: a secret split across chunks is one there). */
export function storedRows(
  batch: PendingEvent[],
  c: Columns,
  mask: (text: string) => string,
): StoredRows {
  const runs = runsOf(batch, c);
  const out: StoredRows = {
    which: [],
    places: [],
    firstPlaces: [],
    kinds: [],
    texts: [],
    sizes: [],
    ats: [],
    rows: c.sessions.map(() => 0),
    totals: c.sessions.map(() => 0),
  };
  const open = c.sessions.map((): MergedRun | undefined => undefined);
  batch.forEach((e, i) => {
    const s = c.which[i]! - 1;
    const place = c.places[i]!;
    const run = runs[s]!.get(place) ?? open[s];
    open[s] = run && place < run.lastSeq ? run : undefined;
    if (open[s]) return; // merged into its run's row, stored at the run's last place
    const merged = run?.lastSeq === place ? run : undefined;
    const text = merged ? storedRunText(merged, mask, FIRST_SEQ_MARK) : e.text;
    const size = merged ? Buffer.byteLength(text) : e.bytes;
    out.which.push(s + 1);
    out.places.push(place);
    out.firstPlaces.push(
      merged && text.includes(FIRST_SEQ_MARK) ? merged.fromSeq : -1,
    );
    out.kinds.push(e.kind);
    out.texts.push(text);
    out.sizes.push(size);
    out.ats.push(e.at);
    out.rows[s]! += 1;
    out.totals[s]! += size;
  });
  return out;
}

/**
 * The statement that writes `batch` (the same values on a retry, so that it finds itself).
 * `stamps`: per session, the `updated_at` to write with it, or 0 (not due). The per-row
 * numbers go as comma-joined text: the driver would escape each element of an array.
 */
export function batchCall(
  caps: LedgerCaps,
  c: Columns,
  r: StoredRows,
  stamps: number[],
  instance: string,
  tag: BatchTag,
): BatchCall {
  return {
    name: "acphub_write_batch_v15",
    text: CALL_TEXT,
    values: [
      ...[c.sessions, c.counts, r.rows, r.totals, stamps],
      ...[r.which.join(","), r.places.join(","), r.firstPlaces.join(",")],
      ...[r.kinds.join(","), r.texts.join(SEPARATOR)],
      ...[r.sizes.join(","), r.ats.join(",")],
      ...[tag.id, tag.forget, tag.node ?? null, instance, Date.now()],
      ...[caps.maxEventsPerSession, caps.maxBytesPerSession],
    ],
  };
}

/**
 * The seq of each event from the function's answer, its sessions' first seqs: the next ones
 * follow in order (undefined: the session does not exist; FENCED: another node holds its lease).
 */
export function seqsOf(
  { which, places }: Columns,
  rows: Record<string, unknown>[],
): (number | undefined)[] {
  const firsts = JSON.parse(String(rows[0]?.["firsts"])) as (number | null)[];
  return which.map((_, i) => {
    const first = firsts[which[i]! - 1];
    if (first === null || first === undefined) return undefined;
    return first === FENCED ? FENCED : first + places[i]!;
  });
}
