// Writes one group-commit batch as one statement, a call of the acphub_write_batch function
// (pg-batch-fn.ts): one round trip, atomic on its own. It locks the sessions' rows, gives each
// event its seq, inserts the events, writes the counters, trims sessions past their caps, sends
// a NOTIFY per session (other acphub processes follow) and records the batch's id with its seqs
// (a retry after an ambiguous COMMIT returns those). In a cluster the events of a session
// another node holds the lease of are not written (fencing: a node cut off from the database
// past its lease must not append after the taker). Nothing is settled here: the caller settles.
import type { LedgerCaps } from "../caps.js";
import type { PendingEvent } from "../group-commit.js";

/** The NOTIFY channel of committed batches (the function sends on it). */
export const CHANNEL = "acphub_events";

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

const CALL_TEXT =
  "SELECT acphub_write_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS seqs";

/** The statement that writes `batch` (the same values on a retry, so that it finds itself). */
export function batchCall(
  caps: LedgerCaps,
  batch: PendingEvent[],
  instance: string,
  tag: BatchTag,
): BatchCall {
  const n = batch.length;
  const [sids, kinds, texts] = [new Array(n), new Array(n), new Array(n)];
  const [sizes, ats] = [new Array(n), new Array(n)];
  for (let i = 0; i < n; i++) {
    const e = batch[i]!;
    sids[i] = e.sessionId;
    kinds[i] = e.kind;
    texts[i] = e.text;
    sizes[i] = e.bytes;
    ats[i] = e.at;
  }
  return {
    name: "acphub_write_batch",
    text: CALL_TEXT,
    values: [
      ...[sids, kinds, texts, sizes, ats],
      ...[tag.id, tag.forget, tag.node ?? null, instance, Date.now()],
      ...[caps.maxEventsPerSession, caps.maxBytesPerSession],
    ],
  };
}

/** The seq of each event from the function's answer (undefined: its session does not exist;
 * FENCED, -1: another node holds its lease). */
export function seqsOf(
  rows: Record<string, unknown>[],
): (number | undefined)[] {
  const seqs = JSON.parse(String(rows[0]?.["seqs"])) as (number | null)[];
  return seqs.map((seq) => seq ?? undefined);
}
