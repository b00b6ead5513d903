// Schema migrations of the PostgreSQL ledger, tracked in acphub_schema and applied under an
// advisory lock so that two acphub processes opening one ledger do not both migrate it.
import type { PoolClient } from "pg";
import { HubError } from "../../shared/errors.js";
import { usersSchemaSql } from "../user-store.js";
import { usageTableSql } from "../usage-table.js";
import { secretsSchemaSql } from "../secret-store.js";
import { WRITE_BATCH_FUNCTION } from "./pg-batch-fn.js";
import { SCHEMA_14_SQL } from "./pg-batch-fn-v14.js";
import { SCHEMA_15_SQL } from "./pg-batch-fn-v15.js";
import { fillUsagePg } from "./pg-usage-fill.js";
import { QUOTA_SCHEMA_SQL } from "./pg-quotas.js";
import { WEB_LOGINS_SCHEMA_SQL } from "./pg-web-logins.js";

const MIGRATIONS: string[] = [
  `CREATE TABLE acphub_sessions (
     id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     cwd TEXT NOT NULL,
     title TEXT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     state TEXT NOT NULL,
     agent_session_id TEXT,
     request TEXT NOT NULL,
     incomplete BOOLEAN NOT NULL DEFAULT FALSE,
     event_count BIGINT NOT NULL DEFAULT 0,
     bytes BIGINT NOT NULL DEFAULT 0,
     next_seq BIGINT NOT NULL DEFAULT 1
   );
   CREATE INDEX acphub_sessions_cwd_updated ON acphub_sessions (cwd, updated_at DESC);
   CREATE INDEX acphub_sessions_updated ON acphub_sessions (updated_at DESC);
   CREATE TABLE acphub_events (
     session_id TEXT NOT NULL REFERENCES acphub_sessions (id) ON DELETE CASCADE,
     seq BIGINT NOT NULL,
     kind TEXT NOT NULL,
     payload JSON NOT NULL,
     bytes INTEGER NOT NULL,
     at BIGINT NOT NULL,
     PRIMARY KEY (session_id, seq)
   );`,
  // 2: the session's modes, models and config options as last reported (JSON text), and the
  // session it was forked from (issue 14's columns, as in the SQLite ledger).
  `ALTER TABLE acphub_sessions ADD COLUMN settings TEXT;
   ALTER TABLE acphub_sessions ADD COLUMN forked_from TEXT;`,
  // 3 (issue 23): the id of each batch, written in the batch's transaction with the seqs it
  // gave, so that a batch retried after an ambiguous COMMIT is found instead of stored twice.
  // A row goes once its writer knows the outcome (the next batch deletes it), or after an hour.
  `CREATE TABLE acphub_batches (id TEXT PRIMARY KEY, seqs TEXT NOT NULL, at BIGINT NOT NULL);
   CREATE INDEX acphub_batches_at ON acphub_batches (at);`,
  // 4 (issue 22): users, their login codes, who may see which session, and the audit log.
  usersSchemaSql("acphub_", "BIGSERIAL PRIMARY KEY", "TEXT"),
  // 5 (issue 23): the nodes of a cluster of `acphub serve` processes, and which node runs each
  // session's agent (a lease renewed with the node's heartbeat; `busy` while a turn runs).
  `CREATE TABLE acphub_nodes (
     id TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     started BIGINT NOT NULL,
     heartbeat BIGINT NOT NULL
   );
   CREATE TABLE acphub_leases (
     session_id TEXT PRIMARY KEY,
     node_id TEXT NOT NULL,
     expires BIGINT NOT NULL,
     busy BOOLEAN NOT NULL DEFAULT FALSE
   );
   CREATE INDEX acphub_leases_node ON acphub_leases (node_id);`,
  // 6 (issue 23): a session's lease goes with the session (however it is deleted: the hub,
  // the command line, retention); the leases of sessions deleted before this are swept here.
  `DELETE FROM acphub_leases l
     WHERE NOT EXISTS (SELECT 1 FROM acphub_sessions s WHERE s.id = l.session_id);
   ALTER TABLE acphub_leases ADD CONSTRAINT acphub_leases_session
     FOREIGN KEY (session_id) REFERENCES acphub_sessions (id) ON DELETE CASCADE;`,
  // 7 (issue 24): a group-commit batch written by one function call, one round trip.
  WRITE_BATCH_FUNCTION,
  // 8 (issue 34): one row per turn that ran, apart from the events: deleting a session no
  // longer gives its usage back. Filled from the events of the sessions held (FILLS below).
  usageTableSql("acphub_usage", "BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION"),
  // 9 (issue 36): each hub user's secrets, sealed with a key the ledger never holds.
  secretsSchemaSql("acphub_"),
  // 10 (issue 37): requests for a session carried to the node that runs it (one row per
  // operation id: a retry finds it, never runs it twice; deleted once answered, old ones swept),
  // and a draining node, whose idle sessions other nodes take instead of routing to it.
  `CREATE TABLE acphub_requests (
     op_id TEXT PRIMARY KEY,
     session_id TEXT NOT NULL,
     from_node TEXT NOT NULL,
     to_node TEXT NOT NULL,
     method TEXT NOT NULL,
     params TEXT NOT NULL,
     caller TEXT,
     state TEXT NOT NULL DEFAULT 'pending',
     cancelled BOOLEAN NOT NULL DEFAULT FALSE,
     answer TEXT,
     created BIGINT NOT NULL,
     answered BIGINT
   );
   CREATE INDEX acphub_requests_created ON acphub_requests (created);
   ALTER TABLE acphub_nodes ADD COLUMN draining BOOLEAN NOT NULL DEFAULT FALSE;`,
  // 11 (issue 37): permission questions open to every node of a
  // cluster: asked by the node running the turn, claimed by the first answer on any node
  // (`answer` set once), deleted once the asking node took the answer or the question ended.
  // `held_until`: another node asks its clients until then (renewed by its heartbeat).
  `CREATE TABLE acphub_questions (
     id TEXT PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES acphub_sessions (id) ON DELETE CASCADE,
     node_id TEXT NOT NULL,
     request TEXT NOT NULL,
     asked BIGINT NOT NULL,
     held_until BIGINT NOT NULL DEFAULT 0,
     answer TEXT,
     answered_by TEXT,
     answered_node TEXT
   );
   CREATE INDEX acphub_questions_session ON acphub_questions (session_id);
   CREATE INDEX acphub_questions_node ON acphub_questions (node_id);`,
  // 12 (issue 37): per-user quota counts a cluster shares — holds owned by the node
  // that took them, the prompts of each user's last window (pg-quotas.ts).
  QUOTA_SCHEMA_SQL,
  // 13 (issue 38): the web page's login codes and browser sessions, shared by a cluster's nodes
  // (hashes of the secrets only; pg-web-logins.ts).
  WEB_LOGINS_SCHEMA_SQL,
  // 14 (issue 39): a session's events deleted with it by a trigger instead of a foreign key
  // checked per inserted event, and a batch function that writes `updated_at` only when due.
  SCHEMA_14_SQL,
  // 15 (issue 39): a batch function that stores each run of text chunks as one merged row.
  SCHEMA_15_SQL,
];

/** Work in TypeScript a version needs after its statements, in the same transaction. */
const FILLS: Record<number, (client: PoolClient) => Promise<void>> = {
  8: fillUsagePg,
};

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** The statements of each version, for tests that build an older ledger. */
export function pgMigrationSql(version: number): string {
  return MIGRATIONS[version - 1] ?? "";
}
const LOCK_KEY = 0x61637068; // "acph"

/** Where a migration announces the schema version it wrote (pg-schema-watch.ts listens). */
export const SCHEMA_CHANNEL = "acphub_schema";

// Brings the database to the newest schema and tells the nodes running on it; refuses one
// written by a newer acphub.
export async function migratePg(
  client: PoolClient,
  where: string,
): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS acphub_schema (version INTEGER NOT NULL)",
    );
    const { rows } = await client.query<{ version: number }>(
      "SELECT version FROM acphub_schema",
    );
    const current = rows[0]?.version ?? 0;
    if (current > PG_SCHEMA_VERSION)
      throw new HubError(
        "LEDGER_UNAVAILABLE",
        `ledger ${where} was written by a newer acphub (schema ${current}; this one knows up to ${PG_SCHEMA_VERSION}): upgrade acphub`,
      );
    for (let version = current; version < PG_SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version] as string);
      await FILLS[version + 1]?.(client);
    }
    if (rows.length === 0)
      await client.query("INSERT INTO acphub_schema VALUES ($1)", [
        PG_SCHEMA_VERSION,
      ]);
    else
      await client.query("UPDATE acphub_schema SET version = $1", [
        PG_SCHEMA_VERSION,
      ]);
    // Delivered at COMMIT: older nodes still running on this database hear that it moved.
    if (current < PG_SCHEMA_VERSION)
      await client.query(`NOTIFY ${SCHEMA_CHANNEL}, '${PG_SCHEMA_VERSION}'`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
