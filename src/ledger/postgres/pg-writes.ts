// The PostgreSQL ledger's compaction write: one statement (atomic on its own, and the same when
// retried after a lost connection: what it changes is counted from the rows it changes).
import type { MergedRun } from "../compaction.js";

// Each run's earlier chunks removed and its last one rewritten; the session's counters change by
// what those rows were and became. (Every sub-statement sees the rows as they were: `was` reads
// the last rows before `merged` rewrites them.) A recount read every event the session ever
// stored, at every turn's compaction.
const COMPACT = `WITH r AS (
    SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS r(from_seq, last_seq, text)
  ), gone AS (
    DELETE FROM acphub_events e USING r
    WHERE e.session_id = $1 AND e.seq >= r.from_seq AND e.seq < r.last_seq
    RETURNING e.bytes
  ), was AS (
    SELECT e.bytes FROM acphub_events e JOIN r ON e.seq = r.last_seq WHERE e.session_id = $1
  ), merged AS (
    UPDATE acphub_events e SET payload = r.text::json, bytes = octet_length(r.text)
    FROM r WHERE e.session_id = $1 AND e.seq = r.last_seq
    RETURNING e.bytes
  )
  UPDATE acphub_sessions SET event_count = event_count - (SELECT count(*) FROM gone),
    bytes = bytes - (SELECT coalesce(sum(bytes), 0) FROM gone)
      - (SELECT coalesce(sum(bytes), 0) FROM was) + (SELECT coalesce(sum(bytes), 0) FROM merged)
  WHERE id = $1`;

/** Applies merged runs with `query` (a pooled connection's, retried). */
export async function compactPg(
  query: (text: string, args: unknown[]) => Promise<unknown>,
  sessionId: string,
  runs: MergedRun[],
): Promise<void> {
  await query(COMPACT, [
    sessionId,
    runs.map((r) => r.fromSeq),
    runs.map((r) => r.lastSeq),
    runs.map((r) => r.text),
  ]);
}
