// The cluster's store in the PostgreSQL ledger (contracts/cluster-store.ts): the SQL of the
// nodes and leases (tables of schemas 5–6 in pg-schema.ts) over the ledger's retrying pool, and
// messages between nodes over its one LISTEN connection; requests carried to a session's runner
// are pg-requests.ts's (schema 10). Times are the database's clock.
import type pg from "pg";
import type {
  Claim,
  ClusterStore,
  LeaseClaim,
  NodeRow,
} from "../../contracts/cluster-store.js";
import type { PgConnection } from "./pg-connection.js";
import type { PgListener } from "./pg-listen.js";
import { pgRequestStore } from "./pg-requests.js";

/** The database's clock in ms. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

type Db = Pick<PgConnection, "query">;

// The store over the ledger's pool and listener; `fenceAs` is the ledger's own.
export function pgClusterStore(
  db: PgConnection,
  listener: PgListener,
  fenceAs: (nodeId: string) => void,
): ClusterStore {
  return {
    ...pgRequestStore(db),
    fenceAs,
    registerNode: (nodeId, url) => registerNode(db, nodeId, url),
    heartbeat: (nodeId, leaseMs, retryMs) =>
      heartbeat(db, nodeId, leaseMs, retryMs),
    claimLease: (claim) => claimLease(db, claim),
    leaseIdle: async (sessionId, nodeId, retryMs) => {
      await db.query(
        "UPDATE acphub_leases SET busy = FALSE WHERE session_id = $1 AND node_id = $2",
        [sessionId, nodeId],
        retryMs,
      );
    },
    holderOf: (sessionId) => holderOf(db, sessionId),
    listNodes: () => listNodes(db),
    leave: (nodeId) => leave(db, nodeId),
    notify: async (channel, payload) => {
      await db.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    listen: (channel, onMessage, reconnected) =>
      listener.listen(channel, onMessage, reconnected),
  };
}

async function registerNode(db: Db, id: string, url: string): Promise<void> {
  await db.query(
    `INSERT INTO acphub_nodes (id, url, started, heartbeat) VALUES ($1, $2, ${NOW_MS}, ${NOW_MS})
     ON CONFLICT (id) DO UPDATE SET url = $2, started = ${NOW_MS}, heartbeat = ${NOW_MS}, draining = FALSE`,
    [id, url],
  );
  await db.query("UPDATE acphub_leases SET expires = 0 WHERE node_id = $1", [
    id,
  ]);
}

// Renews the node's row and leases; the sessions whose leases it still holds.
async function heartbeat(
  db: Db,
  id: string,
  leaseMs: number,
  retryMs: number,
): Promise<Set<string>> {
  await db.query(
    `UPDATE acphub_nodes SET heartbeat = ${NOW_MS} WHERE id = $1`,
    [id],
    retryMs,
  );
  const { rows } = await db.query<{ session_id: string }>(
    `UPDATE acphub_leases SET expires = ${NOW_MS} + $2 WHERE node_id = $1 AND expires > 0 RETURNING session_id`,
    [id, leaseMs],
    retryMs,
  );
  return new Set(rows.map((r) => r.session_id));
}

// The session's row is locked first, as a ledger batch locks it: a batch of the node that held
// the lease commits before the claim, or sees the new holder and is fenced. Retried as a whole
// after a lost connection (a claim is this node's upsert: doing it twice is doing it once).
function claimLease(db: PgConnection, claim: LeaseClaim): Promise<Claim> {
  return db.transaction(async (client) => {
    await client.query(
      "SELECT id FROM acphub_sessions WHERE id = $1 FOR UPDATE",
      [claim.sessionId],
    );
    claim.locked?.();
    return upsertLease(client, claim);
  });
}

// The claim's upsert (a session that does not exist gets no lease: the foreign key). Another
// live node's lease is taken only when that node drains and the session is idle there: a request
// for a session another node runs is carried to it (issue 37), the session stays.
async function upsertLease(
  db: Pick<pg.PoolClient, "query">,
  { sessionId, nodeId, leaseMs, turn }: LeaseClaim,
): Promise<Claim> {
  const { rows } = await db.query<{ interrupted: boolean | null }>(
    `WITH prev AS (SELECT busy, expires FROM acphub_leases WHERE session_id = $1)
     INSERT INTO acphub_leases AS l (session_id, node_id, expires, busy)
       SELECT $1, $2, ${NOW_MS} + $3, $4
       WHERE EXISTS (SELECT 1 FROM acphub_sessions WHERE id = $1)
     ON CONFLICT (session_id) DO UPDATE SET node_id = $2, expires = ${NOW_MS} + $3,
       busy = CASE WHEN $4 THEN TRUE WHEN l.node_id = $2 THEN l.busy ELSE FALSE END
       WHERE l.node_id = $2 OR l.expires < ${NOW_MS} OR (NOT l.busy AND EXISTS
         (SELECT 1 FROM acphub_nodes n WHERE n.id = l.node_id AND n.draining))
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

async function holderOf(
  db: Db,
  sessionId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ node_id: string }>(
    `SELECT node_id FROM acphub_leases WHERE session_id = $1 AND expires >= ${NOW_MS}`,
    [sessionId],
  );
  return rows[0]?.node_id;
}

async function listNodes(db: Db): Promise<NodeRow[]> {
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

async function leave(db: Db, id: string): Promise<void> {
  await db.query("DELETE FROM acphub_leases WHERE node_id = $1", [id]);
  await db.query("DELETE FROM acphub_nodes WHERE id = $1", [id]);
}
