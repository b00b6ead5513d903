// Which of a page of sessions have a turn running on another node (issue 38): a node with no
// client attached to a session knows nothing of its turn elsewhere, so its session list asks the
// ledger. The runner's state travels with its lease (`busy`, set by a turn's claim, cleared at
// its end; an expired lease says nothing), and an open question of that node's turn says
// `waiting`. One query per list page, by primary key and the questions' session index. A turn
// beginning or ending is told every node (TURNS_CHANNEL) in the statement that changes the lease.
import {
  TURNS_CHANNEL,
  type LeaseClaim,
  type TurnElsewhere,
} from "../../contracts/cluster-store.js";
import type { PgConnection } from "./pg-connection.js";

/** The database's clock in ms. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

// The sessions of `ids` whose unexpired lease another node than `nodeId` holds busy.
export async function turnsElsewhere(
  db: Pick<PgConnection, "query">,
  ids: string[],
  nodeId: string,
): Promise<Map<string, TurnElsewhere>> {
  const turns = new Map<string, TurnElsewhere>();
  if (ids.length === 0) return turns;
  const { rows } = await db.query<{
    session_id: string;
    node_id: string;
    waiting: boolean;
  }>(
    `SELECT l.session_id, l.node_id, EXISTS (SELECT 1 FROM acphub_questions q
         WHERE q.session_id = l.session_id AND q.node_id = l.node_id AND q.answer IS NULL)
       AS waiting
     FROM acphub_leases l
     WHERE l.session_id = ANY($1::text[]) AND l.busy AND l.node_id <> $2
       AND l.expires >= ${NOW_MS}`,
    [ids, nodeId],
  );
  for (const r of rows)
    turns.set(r.session_id, {
      node: r.node_id,
      state: r.waiting ? "waiting" : "running",
    });
  return turns;
}

/** The turn this node ran ended: the lease idle, and every node told (only if it was busy). */
export const LEASE_IDLE = `WITH idle AS (
    UPDATE acphub_leases SET busy = FALSE WHERE session_id = $1 AND node_id = $2 AND busy
    RETURNING session_id)
  SELECT pg_notify($3, json_build_object('sessionId', $1::text, 'node', $2::text,
    'running', false)::text) FROM idle`;

// A turn's claim took the lease: every node told (at the claim's commit).
export async function turnBegan(
  db: Pick<PgConnection, "query">,
  claim: LeaseClaim,
): Promise<void> {
  const notice = {
    sessionId: claim.sessionId,
    node: claim.nodeId,
    running: true,
  };
  await db.query("SELECT pg_notify($1, $2)", [
    TURNS_CHANNEL,
    JSON.stringify(notice),
  ]);
}
