// The PostgreSQL ledger's compaction write, run inside the caller's transaction.
import type { PoolClient } from "pg";
import type { MergedRun } from "../compaction.js";

const RECOUNT = `event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = $1),
  bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = $1)`;

// Applies merged runs: each run's earlier chunks removed, its last one rewritten, counters redone.
export async function compactPg(
  client: PoolClient,
  sessionId: string,
  runs: MergedRun[],
): Promise<void> {
  await client.query(
    `DELETE FROM acphub_events e USING unnest($2::bigint[], $3::bigint[]) AS r(from_seq, last_seq)
     WHERE e.session_id = $1 AND e.seq >= r.from_seq AND e.seq < r.last_seq`,
    [sessionId, runs.map((r) => r.fromSeq), runs.map((r) => r.lastSeq)],
  );
  await client.query(
    `UPDATE acphub_events e SET payload = u.text::json, bytes = octet_length(u.text)
     FROM unnest($2::bigint[], $3::text[]) AS u(seq, text) WHERE e.session_id = $1 AND e.seq = u.seq`,
    [sessionId, runs.map((r) => r.lastSeq), runs.map((r) => r.text)],
  );
  await client.query(`UPDATE acphub_sessions SET ${RECOUNT} WHERE id = $1`, [
    sessionId,
  ]);
}
