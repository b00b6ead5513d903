// The cluster's store in the PostgreSQL ledger (contracts/cluster-store.ts): the SQL of the
// nodes and leases (tables of schemas 5–6 in pg-schema.ts) and of the questions every node may
// answer (acphub_questions, issue 37) over the ledger's retrying pool, and messages between
// nodes over its one LISTEN connection; requests carried to a session's runner are
// pg-requests.ts's, quotas pg-quotas.ts's. Times are the database's clock.
import type pg from "pg";
import {
  TURNS_CHANNEL,
  type Claim,
  type ClusterStore,
  type LeaseClaim,
  type NodeRow,
  type OpenQuestion,
  type QuestionStore,
} from "../../contracts/cluster-store.js";
import type { PgConnection } from "./pg-connection.js";
import type { PgListener } from "./pg-listen.js";
import { DROP_NODE_HOLDS, pgQuotaStore } from "./pg-quotas.js";
import { pgRequestStore } from "./pg-requests.js";
import { pgWebLogins } from "./pg-web-logins.js";
import { LEASE_IDLE, turnBegan, turnsElsewhere } from "./pg-turns.js";

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
      await db.query(LEASE_IDLE, [sessionId, nodeId, TURNS_CHANNEL], retryMs);
    },
    holderOf: (sessionId) => holderOf(db, sessionId),
    listNodes: () => listNodes(db),
    turnsElsewhere: (ids, nodeId) => turnsElsewhere(db, ids, nodeId),
    lastSeqs: (ids) => lastSeqs(db, ids),
    leave: (nodeId) => leave(db, nodeId),
    notify: async (channel, payload) => {
      await db.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    listen: (channel, onMessage, reconnected) =>
      listener.listen(channel, onMessage, reconnected),
    quotas: pgQuotaStore(db),
    webLogins: pgWebLogins(db),
    questions: pgQuestions(db),
  };
}

/** The last stored seq of each of these sessions that exists (one query). */
export async function lastSeqs(
  db: Db,
  ids: string[],
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; last: string }>(
    "SELECT id, next_seq - 1 AS last FROM acphub_sessions WHERE id = ANY ($1)",
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.last)]));
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
  await db.query(DROP_NODE_HOLDS, [id]);
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
    const claimed = await upsertLease(client, claim);
    if (claim.turn && claimed.held) await turnBegan(client, claim);
    return claimed;
  });
}

// The claim's upsert (a session that does not exist gets no lease: the foreign key). Another
// live node's lease is taken only when that node drains and the session is idle there: a request
// for a session another node runs is carried to it (issue 37), the session stays.
async function upsertLease(
  db: Pick<pg.PoolClient, "query">,
  { sessionId, nodeId, leaseMs, turn }: LeaseClaim,
): Promise<Claim> {
  const { rows } = await db.query<{
    interrupted: boolean | null;
    ran_on: string | null;
  }>(
    `WITH prev AS (SELECT busy, expires, node_id FROM acphub_leases WHERE session_id = $1)
     INSERT INTO acphub_leases AS l (session_id, node_id, expires, busy)
       SELECT $1, $2, ${NOW_MS} + $3, $4
       WHERE EXISTS (SELECT 1 FROM acphub_sessions WHERE id = $1)
     ON CONFLICT (session_id) DO UPDATE SET node_id = $2, expires = ${NOW_MS} + $3,
       busy = CASE WHEN $4 THEN TRUE WHEN l.node_id = $2 THEN l.busy ELSE FALSE END
       WHERE l.node_id = $2 OR l.expires < ${NOW_MS} OR (NOT l.busy AND EXISTS
         (SELECT 1 FROM acphub_nodes n WHERE n.id = l.node_id AND n.draining))
     RETURNING (SELECT busy AND expires < ${NOW_MS} FROM prev) AS interrupted,
       (SELECT node_id FROM prev) AS ran_on`,
    [sessionId, nodeId, leaseMs, turn],
  );
  const took = rows[0];
  if (took)
    return {
      held: true,
      interrupted: took.interrupted === true,
      ...(took.ran_on ? { ranOn: took.ran_on } : {}),
    };
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
    `SELECT n.id, n.url, n.started, n.draining, ${NOW_MS} - n.heartbeat AS age,
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
    draining: String(r["draining"]) === "true",
  }));
}

async function leave(db: Db, id: string): Promise<void> {
  await db.query("DELETE FROM acphub_leases WHERE node_id = $1", [id]);
  await db.query(DROP_NODE_HOLDS, [id]);
  await db.query("DELETE FROM acphub_nodes WHERE id = $1", [id]);
}

// The questions' SQL: one row per open question; its first answer is set once (the claim).
function pgQuestions(db: Db): QuestionStore {
  const Q = "acphub_questions";
  return {
    ask: async ({ id, sessionId, node, request }) => {
      await db.query(
        `INSERT INTO ${Q} (id, session_id, node_id, request, asked) VALUES ($1, $2, $3, $4, ${NOW_MS})`,
        [id, sessionId, node, request],
      );
    },
    claim: async ({ id, answer, user, node }) => {
      const won = await db.query(
        `UPDATE ${Q} SET answer = $2, answered_by = $3, answered_node = $4
         WHERE id = $1 AND answer IS NULL RETURNING id`,
        [id, answer, user, node],
      );
      if (won.rows.length > 0) return undefined;
      const { rows } = await db.query<Record<string, string>>(
        `SELECT answer, answered_by, answered_node FROM ${Q} WHERE id = $1`,
        [id],
      );
      const row = rows[0];
      if (!row) return {};
      // The claim retried after it had landed (its answer came back unheard) was the first.
      const mine =
        row["answer"] === answer &&
        row["answered_by"] === user &&
        row["answered_node"] === node;
      return mine
        ? undefined
        : { user: row["answered_by"], node: row["answered_node"] };
    },
    take: async (id) => {
      const { rows } = await db.query<Record<string, string>>(
        `DELETE FROM ${Q} WHERE id = $1 AND answer IS NOT NULL
         RETURNING answer, answered_by, answered_node`,
        [id],
      );
      const row = rows[0];
      return row
        ? {
            answer: row["answer"]!,
            user: row["answered_by"]!,
            node: row["answered_node"]!,
          }
        : undefined;
    },
    open: async (sessionIds, node) => {
      const { rows } = await db.query<Record<string, string>>(
        `SELECT id, session_id, node_id, request FROM ${Q}
         WHERE session_id = ANY($1) AND node_id <> $2 AND answer IS NULL`,
        [sessionIds, node],
      );
      return rows.map((r): OpenQuestion => ({
        id: r["id"]!,
        sessionId: r["session_id"]!,
        node: r["node_id"]!,
        request: r["request"]!,
      }));
    },
    answered: async (node) => {
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM ${Q} WHERE node_id = $1 AND answer IS NOT NULL`,
        [node],
      );
      return rows.map((r) => r.id);
    },
    hold: async (ids, ms) => {
      await db.query(
        `UPDATE ${Q} SET held_until = greatest(held_until, ${NOW_MS} + $2) WHERE id = ANY($1)`,
        [ids, ms],
      );
    },
    heldFor: async (id) => {
      const { rows } = await db.query<{ left: string }>(
        `SELECT greatest(0, held_until - ${NOW_MS}) AS left FROM ${Q} WHERE id = $1`,
        [id],
      );
      return Number(rows[0]?.left ?? 0);
    },
    withdraw: async (ids, node) => {
      const { rows } = await db.query<{ id: string }>(
        `DELETE FROM ${Q} WHERE id = ANY($1) OR node_id = $2 RETURNING id`,
        [ids, node ?? null],
      );
      return rows.map((r) => r.id);
    },
    sweep: async (staleMs) => {
      const { rows } = await db.query<{ id: string }>(
        `DELETE FROM ${Q} q WHERE NOT EXISTS (SELECT 1 FROM acphub_nodes n
           WHERE n.id = q.node_id AND n.heartbeat > ${NOW_MS} - $1) RETURNING id`,
        [staleMs],
      );
      return rows.map((r) => r.id);
    },
  };
}
