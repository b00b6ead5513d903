// The cluster's per-user quota counts in the PostgreSQL ledger (contracts/quota-store.ts): a
// row per hold, owned by the node that took it (a node whose heartbeat is older than the
// caller's `staleMs` no longer counts: a crashed node does not lock its users out), and a row
// per prompt of a user's last window. Each check and its count is one function call: one round
// trip, one implicit transaction, under a per-user advisory lock taken before the count (inside
// a VOLATILE plpgsql function each statement reads after the lock), so two nodes never both
// take the last one. The function texts are what the migration ran: a change is a new one.
import type pg from "pg";
import type { QuotaHold, QuotaStore } from "../../contracts/quota-store.js";

/** The ledger's retrying pool (PgConnection), as much as the store uses. */
interface Db {
  query<R extends pg.QueryResultRow>(
    sql: string,
    args?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** The database's clock in ms (as pg-cluster.ts reads it). */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** A hold's node counts while its heartbeat is fresh (`h`: the hold; `p_stale` or `$n`). */
const NODE_ALIVE = (stale: string) =>
  `EXISTS (SELECT 1 FROM acphub_nodes n WHERE n.id = h.node_id AND n.heartbeat >= ${NOW_MS} - ${stale})`;

/** The tables and functions of the counts (PostgreSQL schema 12 in issue 37's numbering). */
export const QUOTA_SCHEMA_SQL = `
CREATE TABLE acphub_quota_holds (
  id BIGSERIAL PRIMARY KEY,
  user_name TEXT NOT NULL,
  kind TEXT NOT NULL,
  node_id TEXT NOT NULL,
  session_id TEXT,
  at BIGINT NOT NULL
);
CREATE INDEX acphub_quota_holds_user ON acphub_quota_holds (user_name, kind);
CREATE INDEX acphub_quota_holds_node ON acphub_quota_holds (node_id);
CREATE TABLE acphub_quota_prompts (user_name TEXT NOT NULL, at BIGINT NOT NULL);
CREATE INDEX acphub_quota_prompts_user ON acphub_quota_prompts (user_name, at);
CREATE FUNCTION acphub_quota_hold(
  p_user TEXT, p_kind TEXT, p_max INTEGER, p_node TEXT, p_session TEXT, p_stale BIGINT
) RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
  v_count BIGINT;
  v_id BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('acphub_quota'), hashtext(p_user));
  IF p_kind = 'opening' AND p_session IS NOT NULL AND EXISTS (
    SELECT 1 FROM acphub_quota_holds h WHERE h.user_name = p_user AND h.kind = 'live'
      AND h.session_id = p_session AND ${NODE_ALIVE("p_stale")}
  ) THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO v_count FROM acphub_quota_holds h
    WHERE h.user_name = p_user AND h.kind = p_kind AND ${NODE_ALIVE("p_stale")};
  IF p_kind = 'opening' THEN
    v_count := v_count + (SELECT count(DISTINCT h.session_id) FROM acphub_quota_holds h
      WHERE h.user_name = p_user AND h.kind = 'live' AND ${NODE_ALIVE("p_stale")});
  END IF;
  IF v_count >= p_max THEN
    RETURN NULL;
  END IF;
  INSERT INTO acphub_quota_holds (user_name, kind, node_id, session_id, at)
    VALUES (p_user, p_kind, p_node, p_session, ${NOW_MS}) RETURNING id INTO v_id;
  RETURN v_id;
END
$fn$;
CREATE FUNCTION acphub_quota_take(p_user TEXT, p_max INTEGER, p_window BIGINT)
RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
  v_now BIGINT := ${NOW_MS};
  v_count INTEGER;
  v_oldest BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('acphub_quota'), hashtext(p_user));
  DELETE FROM acphub_quota_prompts WHERE user_name = p_user AND at <= v_now - p_window;
  SELECT count(*), min(at) INTO v_count, v_oldest FROM acphub_quota_prompts
    WHERE user_name = p_user;
  IF v_count >= p_max THEN
    RETURN greatest(1, v_oldest + p_window - v_now);
  END IF;
  INSERT INTO acphub_quota_prompts (user_name, at) VALUES (p_user, v_now);
  RETURN 0;
END
$fn$;`;

/** A node's holds, gone when it starts again or leaves (its turns and sessions went with it). */
export const DROP_NODE_HOLDS =
  "DELETE FROM acphub_quota_holds WHERE node_id = $1";

// The store over the ledger's retrying pool.
export function pgQuotaStore(db: Db): QuotaStore {
  return {
    hold: async (h: QuotaHold) => {
      const { rows } = await db.query<{ id: string | null }>(
        "SELECT acphub_quota_hold($1, $2, $3, $4, $5, $6) AS id",
        [h.user, h.kind, h.max, h.nodeId, h.sessionId ?? null, h.staleMs],
      );
      const id = rows[0]?.id;
      return id === null || id === undefined ? undefined : Number(id);
    },
    release: async (id) => {
      if (id === 0) return;
      await db.query("DELETE FROM acphub_quota_holds WHERE id = $1", [id]);
    },
    held: async (user, kind, staleMs) => {
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM acphub_quota_holds h
         WHERE h.user_name = $1 AND h.kind = $2 AND ${NODE_ALIVE("$3")}`,
        [user, kind, staleMs],
      );
      return Number(rows[0]?.n ?? 0);
    },
    take: async (user, max, windowMs) => {
      const { rows } = await db.query<{ wait: string }>(
        "SELECT acphub_quota_take($1, $2, $3) AS wait",
        [user, max, windowMs],
      );
      return Number(rows[0]?.wait ?? 0);
    },
  };
}
