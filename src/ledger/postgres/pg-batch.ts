// Writes one group-commit batch in one PostgreSQL transaction: the sessions' counters locked and
// read once, all events inserted with one statement, counters written once, caps applied, and a
// NOTIFY per session so that other acphub processes can follow. Nothing is settled here: the
// caller settles after COMMIT.
import type { PoolClient } from "pg";
import type { LedgerCaps } from "../caps.js";
import type { PendingEvent } from "../group-commit.js";

export const CHANNEL = "acphub_events";

interface Counters {
  next_seq: number;
  event_count: number;
  bytes: number;
  at: number;
}

// Inserts the batch; returns the seq of each event (undefined: its session does not exist).
export async function writePgBatch(
  client: PoolClient,
  caps: LedgerCaps,
  batch: PendingEvent[],
  instance: string,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(batch.map((e) => e.sessionId))].sort();
  const { rows } = await client.query<{
    id: string;
    next_seq: string;
    event_count: string;
    bytes: string;
  }>(
    "SELECT id, next_seq, event_count, bytes FROM acphub_sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE",
    [ids],
  );
  const counters = new Map<string, Counters>(
    rows.map((r) => [
      r.id,
      {
        next_seq: Number(r.next_seq),
        event_count: Number(r.event_count),
        bytes: Number(r.bytes),
        at: 0,
      },
    ]),
  );
  const cols: unknown[][] = [[], [], [], [], [], []];
  const seqs = batch.map((e) => {
    const c = counters.get(e.sessionId);
    if (!c) return undefined;
    const seq = c.next_seq++;
    c.event_count += 1;
    c.bytes += e.bytes;
    c.at = e.at;
    [e.sessionId, seq, e.kind, e.text, e.bytes, e.at].forEach((v, i) =>
      cols[i]?.push(v),
    );
    return seq;
  });
  if (counters.size === 0) return seqs;
  await client.query(
    `INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::json[], $5::int[], $6::bigint[])`,
    cols,
  );
  const touched = [...counters].filter(([, c]) => c.at > 0);
  await client.query(
    `UPDATE acphub_sessions s SET next_seq = u.next_seq, event_count = u.event_count, bytes = u.bytes, updated_at = u.at
     FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(id, next_seq, event_count, bytes, at)
     WHERE s.id = u.id`,
    [0, 1, 2, 3, 4].map((i) =>
      touched.map(
        ([id, c]) => [id, c.next_seq, c.event_count, c.bytes, c.at][i],
      ),
    ),
  );
  for (const [id, c] of touched)
    if (
      c.event_count > caps.maxEventsPerSession ||
      c.bytes > caps.maxBytesPerSession
    )
      await trimPg(client, caps, id);
  await client.query(
    `SELECT pg_notify($1, u.msg) FROM unnest($2::text[]) AS u(msg)`,
    [
      CHANNEL,
      touched.map(([id, c]) => JSON.stringify([instance, id, c.next_seq - 1])),
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
