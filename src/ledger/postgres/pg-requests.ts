// The channel between a cluster's nodes (issue 37), part of the cluster's store (pg-cluster.ts):
// a request for a session is a row of acphub_requests (schema 10) keyed by its operation id,
// its node is woken by NOTIFY on the cluster's channel, the runner marks it running (once) and
// stores the answer, and the sender is woken the same way. Rows go once the answer is read;
// the sweep deletes what a dead sender left. Times are the database's clock.
import type {
  LeaseMove,
  NodeAnswer,
  NodeRequest,
  NodeRequestState,
  NodeRequestStore,
} from "../../contracts/cluster-store.js";
import type { PgConnection } from "./pg-connection.js";

/** The database's clock in ms. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

type Db = Pick<PgConnection, "query">;

// The request half of the cluster store over the ledger's retrying pool.
export function pgRequestStore(db: PgConnection): NodeRequestStore {
  return {
    sendRequest: (request, channel) => sendRequest(db, request, channel),
    takeRequest: (op, nodeId) => takeRequest(db, op, nodeId),
    answerRequest: (op, answer, channel) =>
      answerRequest(db, op, answer, channel),
    requestState: (op) => requestState(db, op),
    pendingRequests: async (nodeId) => {
      const { rows } = await db.query<{ op_id: string }>(
        "SELECT op_id FROM acphub_requests WHERE to_node = $1 AND state = 'pending'",
        [nodeId],
      );
      return rows.map((r) => r.op_id);
    },
    cancelRequest: async (op, channel) => {
      await db.query(
        `WITH c AS (UPDATE acphub_requests SET cancelled = TRUE WHERE op_id = $1 RETURNING to_node)
         SELECT pg_notify($2, json_build_object('to', to_node, 'cancelOp', $1::text)::text) FROM c`,
        [op, channel],
      );
    },
    abandonRequest: async (op) => {
      const { rowCount } = await db.query(
        "UPDATE acphub_requests SET state = 'abandoned' WHERE op_id = $1 AND state = 'pending'",
        [op],
      );
      return (rowCount ?? 0) > 0;
    },
    forgetRequest: async (op) => {
      await db.query("DELETE FROM acphub_requests WHERE op_id = $1", [op]);
    },
    sweepRequests: async (answeredMs, maxAgeMs) => {
      const { rowCount } = await db.query(
        `DELETE FROM acphub_requests WHERE (answered IS NOT NULL AND answered < ${NOW_MS} - $1)
           OR created < ${NOW_MS} - $2`,
        [answeredMs, maxAgeMs],
      );
      return rowCount ?? 0;
    },
    moveLease: (sessionId, nodeId, leaseMs) =>
      moveLease(db, sessionId, nodeId, leaseMs),
    setDraining: async (nodeId) => {
      await db.query("UPDATE acphub_nodes SET draining = TRUE WHERE id = $1", [
        nodeId,
      ]);
    },
  };
}

// One statement: the row (a second send of the same op id writes nothing) and its notice,
// which PostgreSQL delivers at commit.
async function sendRequest(
  db: Db,
  r: NodeRequest,
  channel: string,
): Promise<void> {
  await db.query(
    `WITH ins AS (
       INSERT INTO acphub_requests (op_id, session_id, from_node, to_node, method, params, caller, created)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${NOW_MS}) ON CONFLICT (op_id) DO NOTHING)
     SELECT pg_notify($8, $9)`,
    [
      r.op,
      r.sessionId,
      r.from,
      r.to,
      r.method,
      JSON.stringify(r.params),
      r.caller ? JSON.stringify(r.caller) : null,
      channel,
      JSON.stringify({ to: r.to, request: r.op }),
    ],
  );
}

// Marks a pending request of this node running and returns it: only one taker ever gets it.
async function takeRequest(
  db: Db,
  op: string,
  nodeId: string,
): Promise<(NodeRequest & { cancelled: boolean }) | undefined> {
  const { rows } = await db.query<Record<string, string | boolean | null>>(
    `UPDATE acphub_requests SET state = 'running'
     WHERE op_id = $1 AND to_node = $2 AND state = 'pending'
     RETURNING session_id, from_node, method, params, caller, cancelled`,
    [op, nodeId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    op,
    sessionId: String(row["session_id"]),
    from: String(row["from_node"]),
    to: nodeId,
    method: String(row["method"]),
    params: JSON.parse(String(row["params"])) as Record<string, unknown>,
    ...(row["caller"]
      ? { caller: JSON.parse(String(row["caller"])) as NodeRequest["caller"] }
      : {}),
    cancelled: row["cancelled"] === true,
  };
}

// Stores the answer of a running request once and wakes its sender.
async function answerRequest(
  db: Db,
  op: string,
  answer: NodeAnswer,
  channel: string,
): Promise<void> {
  await db.query(
    `WITH a AS (UPDATE acphub_requests SET state = 'done', answer = $2, answered = ${NOW_MS}
       WHERE op_id = $1 AND state = 'running' RETURNING from_node)
     SELECT pg_notify($3, json_build_object('to', from_node, 'answer', $1::text)::text) FROM a`,
    [op, JSON.stringify(answer), channel],
  );
}

// The request's state and answer, and who holds its session's unexpired lease now.
async function requestState(
  db: Db,
  op: string,
): Promise<NodeRequestState | undefined> {
  const { rows } = await db.query<{
    state: NodeRequestState["state"];
    answer: string | null;
    holder: string | null;
  }>(
    `SELECT r.state, r.answer, (SELECT node_id FROM acphub_leases l
       WHERE l.session_id = r.session_id AND l.expires >= ${NOW_MS}) AS holder
     FROM acphub_requests r WHERE r.op_id = $1`,
    [op],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    state: row.state,
    ...(row.answer ? { answer: JSON.parse(row.answer) as NodeAnswer } : {}),
    ...(row.holder ? { holder: row.holder } : {}),
  };
}

// An idle session's lease given to a live node (an admin's move); a busy one is refused.
async function moveLease(
  db: Db,
  sessionId: string,
  nodeId: string,
  leaseMs: number,
): Promise<LeaseMove> {
  const { rows } = await db.query<{ prev: string | null; busy: boolean }>(
    `WITH prev AS (SELECT node_id, busy, expires >= ${NOW_MS} AS live FROM acphub_leases WHERE session_id = $1),
     up AS (
       INSERT INTO acphub_leases AS l (session_id, node_id, expires, busy)
         SELECT $1, $2, ${NOW_MS} + $3, FALSE WHERE EXISTS (SELECT 1 FROM acphub_sessions WHERE id = $1)
       ON CONFLICT (session_id) DO UPDATE SET node_id = $2, expires = ${NOW_MS} + $3,
         busy = CASE WHEN l.node_id = $2 THEN l.busy ELSE FALSE END
         WHERE NOT l.busy OR l.expires < ${NOW_MS} OR l.node_id = $2
       RETURNING 1)
     SELECT (SELECT node_id FROM prev WHERE live) AS prev,
       (SELECT busy AND live FROM prev) IS TRUE AND NOT EXISTS (SELECT 1 FROM up) AS busy`,
    [sessionId, nodeId, leaseMs],
  );
  const row = rows[0];
  if (row?.busy) return { moved: false, holder: row.prev ?? "?", busy: true };
  return row?.prev ? { moved: true, from: row.prev } : { moved: true };
}
