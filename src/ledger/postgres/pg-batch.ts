// Writes one group-commit batch in one PostgreSQL transaction: the sessions' counters locked and
// read once, then one statement (one round trip) that inserts every event, writes the counters,
// sends a NOTIFY per session (other acphub processes follow) and records the batch's id with
// its seqs (a retry after an ambiguous COMMIT returns those); caps applied after. In a cluster the
// events of a session another node holds the lease of are not written (fencing: a node cut off
// from the database past its lease must not append after the taker). Nothing is settled here:
// the caller settles after COMMIT.
import type { PoolClient } from "pg";
import type { LedgerCaps } from "../caps.js";
import { countBatch, overCaps } from "../counters.js";
import { FENCED, type PendingEvent } from "../group-commit.js";

export const CHANNEL = "acphub_events";

/** A batch's identity: its id, whether this is a retry, and acknowledged ids to delete. */
export interface BatchTag {
  id: string;
  retry: boolean;
  forget: string[];
  /** The cluster node writing: sessions whose lease another node holds are fenced. */
  node?: string;
}

/** The database's clock in ms (lease expiry is on it). */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

// The sessions of a batch whose unexpired lease another node holds. Read after the sessions'
// rows are locked: a claim locks the row too, so it is either seen here or waits for COMMIT.
async function fencedSessions(
  client: PoolClient,
  ids: string[],
  node: string | undefined,
): Promise<Set<string>> {
  if (node === undefined) return new Set();
  const { rows } = await client.query<{ session_id: string }>(
    `SELECT session_id FROM acphub_leases
     WHERE session_id = ANY($1) AND node_id <> $2 AND expires >= ${NOW_MS}`,
    [ids, node],
  );
  return new Set(rows.map((r) => r.session_id));
}

// The seqs a batch was given, when an earlier attempt of it committed.
async function storedSeqs(
  client: PoolClient,
  id: string,
): Promise<(number | undefined)[] | undefined> {
  const { rows } = await client.query<{ seqs: string }>(
    "SELECT seqs FROM acphub_batches WHERE id = $1",
    [id],
  );
  const seqs = rows[0] && (JSON.parse(rows[0].seqs) as (number | null)[]);
  return seqs && seqs.map((seq) => seq ?? undefined);
}

// Inserts the batch (once: a retry finds what an earlier attempt committed); returns the seq of
// each event (undefined: its session does not exist).
export async function writePgBatch(
  client: PoolClient,
  caps: LedgerCaps,
  batch: PendingEvent[],
  instance: string,
  tag: BatchTag,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(batch.map((e) => e.sessionId))].sort();
  const { rows } = await client.query<Record<string, unknown>>(
    "SELECT id, next_seq, event_count, bytes FROM acphub_sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE",
    [ids],
  );
  // Checked once the rows are locked: an earlier attempt still committing has finished by then.
  const stored = tag.retry ? await storedSeqs(client, tag.id) : undefined;
  if (stored) return stored;
  const fenced = await fencedSessions(client, ids, tag.node);
  const { cols, seqs, written } = columnsOf(batch, rows, fenced);
  await client.query(BATCH_SQL, [
    ...cols,
    ...[0, 1, 2, 3, 4].map((i) =>
      written.map(([id, c]) => [id, c.nextSeq, c.eventCount, c.bytes, c.at][i]),
    ),
    tag.id,
    JSON.stringify(seqs),
    Date.now(),
    tag.forget,
    CHANNEL,
    written.map(([id, c]) => JSON.stringify([instance, id, c.nextSeq - 1])),
  ]);
  for (const [id, c] of written)
    if (overCaps(c, caps)) await trimPg(client, caps, id);
  return seqs;
}

// The batch's rows as insert columns, each event's seq (FENCED for a fenced session's), and the
// sessions written with their new counters.
function columnsOf(
  batch: PendingEvent[],
  rows: Record<string, unknown>[],
  fenced: Set<string>,
) {
  const cols: unknown[][] = [[], [], [], [], [], []];
  const open = rows.filter((r) => !fenced.has(String(r["id"])));
  const { seqs, written } = countBatch(batch, open, (e, seq) =>
    [e.sessionId, seq, e.kind, e.text, e.bytes, e.at].forEach((v, i) =>
      cols[i]?.push(v),
    ),
  );
  return {
    cols,
    seqs: seqs.map((seq, i) =>
      fenced.has(batch[i]!.sessionId) ? FENCED : seq,
    ),
    written,
  };
}

// One round trip for the whole batch: the events inserted, the counters written, the batch's id
// and seqs recorded, acknowledged ids forgotten, and one NOTIFY per session written.
const BATCH_SQL = `WITH ins AS (
    INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::json[], $5::int[], $6::bigint[])
  ), upd AS (
    UPDATE acphub_sessions s SET next_seq = u.next_seq, event_count = u.event_count, bytes = u.bytes, updated_at = u.at
    FROM unnest($7::text[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[]) AS u(id, next_seq, event_count, bytes, at)
    WHERE s.id = u.id
  ), bat AS (
    INSERT INTO acphub_batches (id, seqs, at) VALUES ($12, $13, $14)
  ), fgt AS (
    DELETE FROM acphub_batches WHERE id = ANY($15::text[])
  )
  SELECT pg_notify($16, m.msg) FROM unnest($17::text[]) AS m(msg)`;

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
