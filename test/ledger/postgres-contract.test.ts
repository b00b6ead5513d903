// The ledger contract against a real PostgreSQL started for this file.
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { ledgerContract } from "./contract.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

describe("PostgreSQL ledger contract", () => {
  ledgerContract({
    async create(caps) {
      const where = await server.database();
      return { ledger: await PostgresLedger.open(where, { caps }), where };
    },
    reopen(where, caps) {
      return PostgresLedger.open(where, { caps });
    },
    async damage(where, sessionId, seq) {
      const client = new pg.Client({ connectionString: where });
      await client.connect();
      await client.query(
        "UPDATE acphub_events SET payload = '[1]' WHERE session_id = $1 AND seq = $2",
        [sessionId, seq],
      );
      await client.end();
    },
    async downgradeUsage(where) {
      const client = new pg.Client({ connectionString: where });
      await client.connect();
      // Everything after schema 7: usage (8), secrets (9), requests between nodes (10),
      // questions (11), quota counts (12), web logins (13), events' trigger and batch (14),
      // the batch that merges chunk runs (15).
      await client.query(
        `DROP TABLE acphub_usage, acphub_user_secrets, acphub_requests, acphub_questions,
           acphub_quota_holds, acphub_quota_prompts, acphub_web_logins;
         DROP FUNCTION acphub_quota_hold, acphub_quota_take;
         ALTER TABLE acphub_nodes DROP COLUMN draining;
         DROP TRIGGER acphub_sessions_deleted ON acphub_sessions;
         DROP FUNCTION acphub_sessions_deleted, acphub_write_batch_v14,
           acphub_write_batch_v15;
         ALTER TABLE acphub_events ADD CONSTRAINT acphub_events_session_id_fkey
           FOREIGN KEY (session_id) REFERENCES acphub_sessions (id) ON DELETE CASCADE;`,
      );
      await client.query("UPDATE acphub_schema SET version = 7");
      await client.end();
    },
    mergesAsWritten: "batch",
  });
});
