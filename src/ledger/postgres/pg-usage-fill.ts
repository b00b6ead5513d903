// Schema 8's fill: the usage of every turn the ledger's sessions recorded before the usage table
// existed, written into it once (inside the migration's transaction), so that `acphub usage` and
// budgets read the same totals after the upgrade as before it.
import type { PoolClient } from "pg";
import {
  FILL_WHERE,
  insertUsage,
  usageArgs,
  usageOfEvents,
} from "../usage-table.js";

const READ = `SELECT seq::float8 AS seq, kind, payload::text AS text, at::float8 AS at
  FROM acphub_events WHERE session_id = $1 AND ${FILL_WHERE("payload::text")} ORDER BY seq`;

// Writes the rows of each session's turns.
export async function fillUsagePg(client: PoolClient): Promise<void> {
  const { rows: sessions } = await client.query<{
    id: string;
    agent: string;
    createdAt: number;
  }>(
    `SELECT id, agent, created_at::float8 AS "createdAt" FROM acphub_sessions`,
  );
  const insert = insertUsage("acphub_usage", (n) => `$${n}`);
  for (const session of sessions) {
    const { rows } = await client.query<{
      seq: number;
      kind: string;
      text: string;
      at: number;
    }>(READ, [session.id]);
    for (const row of usageOfEvents(session, rows))
      await client.query(insert, usageArgs(row));
  }
}
