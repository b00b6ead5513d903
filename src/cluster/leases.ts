// The SQL of a cluster's nodes and leases (tables of the PostgreSQL ledger's schemas 5–6). Times
// are the database's clock, so that nodes on machines whose clocks differ agree on expiry.
import pg from "pg";
import type { Claim } from "../hub/runner.js";

/** The database's clock in ms. */
export const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

export interface NodeRow {
  id: string;
  url: string;
  started: number;
  heartbeatAgeMs: number;
  /** Sessions whose lease this node holds (unexpired). */
  sessions: number;
  /** Of them, with a turn running. */
  running: number;
}

type Db = Pick<pg.Pool, "query">;

// A node's row, written when it starts; its leases from before a restart read as lapsed.
export async function registerNode(
  db: Db,
  id: string,
  url: string,
): Promise<void> {
  await db.query(
    `INSERT INTO acphub_nodes (id, url, started, heartbeat) VALUES ($1, $2, ${NOW_MS}, ${NOW_MS})
     ON CONFLICT (id) DO UPDATE SET url = $2, started = ${NOW_MS}, heartbeat = ${NOW_MS}`,
    [id, url],
  );
  await db.query("UPDATE acphub_leases SET expires = 0 WHERE node_id = $1", [
    id,
  ]);
}

// Renews the node's row and leases; the sessions whose leases it still holds.
export async function heartbeat(
  db: Db,
  id: string,
  leaseMs: number,
): Promise<Set<string>> {
  await db.query(
    `UPDATE acphub_nodes SET heartbeat = ${NOW_MS} WHERE id = $1`,
    [id],
  );
  const { rows } = await db.query<{ session_id: string }>(
    `UPDATE acphub_leases SET expires = ${NOW_MS} + $2 WHERE node_id = $1 AND expires > 0 RETURNING session_id`,
    [id, leaseMs],
  );
  return new Set(rows.map((r) => r.session_id));
}

// Takes a session's lease when free, lapsed or this node's; for a turn also when idle. The
// session's row is locked first, as a ledger batch locks it: a batch of the node that held the
// lease commits before the claim, or sees the new holder and is fenced.
export async function claimLease(
  pool: pg.Pool,
  sessionId: string,
  nodeId: string,
  leaseMs: number,
  turn: boolean,
  /** Called once the session's row is locked, just before the lease is written. */
  locked: () => void = () => undefined,
): Promise<Claim> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    await client.query(
      "SELECT id FROM acphub_sessions WHERE id = $1 FOR UPDATE",
      [sessionId],
    );
    locked();
    const claim = await upsertLease(client, sessionId, nodeId, leaseMs, turn);
    await client.query("COMMIT");
    return claim;
  } catch (error) {
    broken = error as Error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release(broken);
  }
}

// The claim's upsert (a session that does not exist gets no lease: the foreign key).
async function upsertLease(
  db: Db,
  sessionId: string,
  nodeId: string,
  leaseMs: number,
  turn: boolean,
): Promise<Claim> {
  const { rows } = await db.query<{ interrupted: boolean | null }>(
    `WITH prev AS (SELECT busy, expires FROM acphub_leases WHERE session_id = $1)
     INSERT INTO acphub_leases AS l (session_id, node_id, expires, busy)
       SELECT $1, $2, ${NOW_MS} + $3, $4
       WHERE EXISTS (SELECT 1 FROM acphub_sessions WHERE id = $1)
     ON CONFLICT (session_id) DO UPDATE SET node_id = $2, expires = ${NOW_MS} + $3,
       busy = CASE WHEN $4 THEN TRUE WHEN l.node_id = $2 THEN l.busy ELSE FALSE END
       WHERE l.node_id = $2 OR l.expires < ${NOW_MS} OR ($4 AND NOT l.busy)
     RETURNING (SELECT busy AND expires < ${NOW_MS} FROM prev) AS interrupted`,
    [sessionId, nodeId, leaseMs, turn],
  );
  if (rows.length > 0)
    return { held: true, interrupted: rows[0]!.interrupted === true };
  const holder = await db.query<{ node_id: string; busy: boolean }>(
    "SELECT node_id, busy FROM acphub_leases WHERE session_id = $1",
    [sessionId],
  );
  const row = holder.rows[0];
  return {
    held: false,
    holder: row?.node_id ?? "(none: the session was deleted)",
    busy: row?.busy ?? false,
  };
}

/** The node that holds a session's unexpired lease, if any. */
export async function holderOf(
  db: Db,
  sessionId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ node_id: string }>(
    `SELECT node_id FROM acphub_leases WHERE session_id = $1 AND expires >= ${NOW_MS}`,
    [sessionId],
  );
  return rows[0]?.node_id;
}

// The nodes with their heartbeat age and the sessions each runs.
export async function listNodes(db: Db): Promise<NodeRow[]> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT n.id, n.url, n.started, ${NOW_MS} - n.heartbeat AS age,
       count(l.session_id) AS sessions, count(l.session_id) FILTER (WHERE l.busy) AS running
     FROM acphub_nodes n
     LEFT JOIN acphub_leases l ON l.node_id = n.id AND l.expires >= ${NOW_MS}
       AND EXISTS (SELECT 1 FROM acphub_sessions s WHERE s.id = l.session_id)
     GROUP BY n.id ORDER BY n.id`,
  );
  return rows.map((r) => ({
    id: String(r["id"]),
    url: String(r["url"]),
    started: Number(r["started"]),
    heartbeatAgeMs: Number(r["age"]),
    sessions: Number(r["sessions"]),
    running: Number(r["running"]),
  }));
}

// A node stopping cleanly: its leases go at once (others need not wait), and its row.
export async function leaveCluster(db: Db, id: string): Promise<void> {
  await db.query("DELETE FROM acphub_leases WHERE node_id = $1", [id]);
  await db.query("DELETE FROM acphub_nodes WHERE id = $1", [id]);
}

// The nodes as one short-lived connection sees them (for `acphub nodes list`).
export async function readNodes(url: string): Promise<NodeRow[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => undefined);
  try {
    return await listNodes(pool);
  } finally {
    await pool.end();
  }
}
