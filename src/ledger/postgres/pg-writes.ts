// The PostgreSQL ledger's multi-statement writes, each run inside the caller's transaction.
import type { PoolClient } from "pg";
import type { MergedRun } from "../compaction.js";

const RECOUNT = `event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = $1),
  bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = $1)`;

// Inserts a session row from its eleven column values.
export async function insertSessionPg(
  client: PoolClient,
  args: unknown[],
): Promise<void> {
  await client.query(
    `INSERT INTO acphub_sessions (id, agent, cwd, title, created_at, updated_at, state, agent_session_id, request, settings, forked_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    args,
  );
}

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

// Copies a session's events up to a sequence number into another (fork), counters included.
export async function copyEventsPg(
  client: PoolClient,
  fromId: string,
  toId: string,
  uptoSeq: number | undefined,
  incomplete: boolean,
): Promise<void> {
  await client.query(
    `INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
     SELECT $1, seq, kind, payload, bytes, at FROM acphub_events WHERE session_id = $2 AND seq <= $3`,
    [toId, fromId, uptoSeq ?? Number.MAX_SAFE_INTEGER],
  );
  await client.query(
    `UPDATE acphub_sessions SET incomplete = $2, ${RECOUNT},
       next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM acphub_events WHERE session_id = $1)
     WHERE id = $1`,
    [toId, incomplete],
  );
}
