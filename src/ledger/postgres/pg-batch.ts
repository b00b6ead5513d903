// Writes one group-commit batch in one PostgreSQL transaction: the sessions' counters locked and
// read once, all events inserted with one statement, counters written once, caps applied, and a
// NOTIFY per session so that other acphub processes can follow. Nothing is settled here: the
// caller settles after COMMIT.
import type { PoolClient } from "pg";
import type { LedgerCaps } from "../caps.js";
import { assignSeqs, countersOf, overCaps, touched } from "../counters.js";
import type { PendingEvent } from "../group-commit.js";

export const CHANNEL = "acphub_events";

// Inserts the batch; returns the seq of each event (undefined: its session does not exist).
export async function writePgBatch(
  client: PoolClient,
  caps: LedgerCaps,
  batch: PendingEvent[],
  instance: string,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(batch.map((e) => e.sessionId))].sort();
  const { rows } = await client.query<Record<string, unknown>>(
    "SELECT id, next_seq, event_count, bytes FROM acphub_sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE",
    [ids],
  );
  const counters = new Map(rows.map((r) => [String(r["id"]), countersOf(r)]));
  const cols: unknown[][] = [[], [], [], [], [], []];
  const seqs = assignSeqs(batch, counters, (e, seq) =>
    [e.sessionId, seq, e.kind, e.text, e.bytes, e.at].forEach((v, i) =>
      cols[i]?.push(v),
    ),
  );
  if (counters.size === 0) return seqs;
  await client.query(
    `INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::json[], $5::int[], $6::bigint[])`,
    cols,
  );
  const written = touched(counters);
  await client.query(
    `UPDATE acphub_sessions s SET next_seq = u.next_seq, event_count = u.event_count, bytes = u.bytes, updated_at = u.at
     FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(id, next_seq, event_count, bytes, at)
     WHERE s.id = u.id`,
    [0, 1, 2, 3, 4].map((i) =>
      written.map(([id, c]) => [id, c.nextSeq, c.eventCount, c.bytes, c.at][i]),
    ),
  );
  for (const [id, c] of written)
    if (overCaps(c, caps)) await trimPg(client, caps, id);
  await client.query(
    `SELECT pg_notify($1, u.msg) FROM unnest($2::text[]) AS u(msg)`,
    [
      CHANNEL,
      written.map(([id, c]) => JSON.stringify([instance, id, c.nextSeq - 1])),
    ],
  );
  return seqs;
}

// Drops the oldest events of a session past its caps (never its newest) and marks it incomplete.
async function trimPg(
  client: PoolClient,
  caps: LedgerCaps,
  id: string,
): Promise<void> {
  await client.query(
    `DELETE FROM acphub_events e USING (
       SELECT seq FROM (
         SELECT seq, row_number() OVER w AS n, sum(bytes) OVER w AS total
         FROM acphub_events WHERE session_id = $1 WINDOW w AS (ORDER BY seq DESC)
       ) t WHERE n > 1 AND (n > $2 OR total > $3)
     ) d WHERE e.session_id = $1 AND e.seq = d.seq`,
    [id, caps.maxEventsPerSession, caps.maxBytesPerSession],
  );
  await client.query(
    `UPDATE acphub_sessions SET incomplete = TRUE,
       event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = $1),
       bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = $1)
     WHERE id = $1`,
    [id],
  );
}
