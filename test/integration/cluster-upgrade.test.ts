// Issue 38: nodes of two versions on one PostgreSQL database (a rolling upgrade). A migration
// announces the version it wrote (NOTIFY acphub_schema); a node still running the older acphub
// logs once, clearly, that the schema moved under it and what to do; started again as it is it
// is refused ("written by a newer acphub"). What a newer acphub's migration does is done here by
// hand (the same UPDATE and NOTIFY that migratePg runs), since no newer acphub exists yet.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import {
  PG_SCHEMA_VERSION,
  pgMigrationSql,
} from "../../src/ledger/postgres/pg-schema.js";
import { clusterFixture } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import { openSession, startHub, text, until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const fx = clusterFixture();

describe("nodes of two versions on one database", { timeout: 120_000 }, () => {
  it("a migration announces the version it wrote", async () => {
    const url = await fx.database();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(pgMigrationSql(1));
    await client.query(
      "CREATE TABLE acphub_schema (version INTEGER NOT NULL); INSERT INTO acphub_schema VALUES (1)",
    );
    const heard: string[] = [];
    client.on("notification", (n) => {
      if (n.channel === "acphub_schema") heard.push(n.payload ?? "");
    });
    await client.query("LISTEN acphub_schema");
    const ledger = await PostgresLedger.open(url);
    await until(() => heard.length > 0);
    expect(heard).toEqual([String(PG_SCHEMA_VERSION)]);
    await ledger.close();
    await client.end();
  });

  it("an older node hears the schema move under it, keeps serving, and is refused on restart", async () => {
    const url = await fx.database();
    const old = await fx.node(url, "old");
    const newer = PG_SCHEMA_VERSION + 1;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("BEGIN");
    await client.query("UPDATE acphub_schema SET version = $1", [newer]);
    await client.query(`NOTIFY acphub_schema, '${newer}'`);
    await client.query("COMMIT");
    await client.end();
    const said = `the database's schema is now ${newer}, migrated by a newer acphub while this node (schema ${PG_SCHEMA_VERSION}) runs: upgrade this node and restart it`;
    await until(() => old.h.stderr().includes(said));
    expect(old.h.stderr().split(said).length).toBe(2);
    // It still serves (this schema's change would have been additive).
    const c = fx.client(old.h);
    const sessionId = await openSession(c, old.home);
    const turn = await c.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text(steps({ text: "still here" })) },
    );
    expect(turn.stopReason).toBe("end_turn");
    // Another node of this version is refused, saying why.
    const home = tempDir();
    mockConfig(home);
    await expect(
      startHub(home, ["--node-id", "again"], {
        ACPHUB_LEDGER_URL: url,
        ACPHUB_TOKEN: "t".repeat(32),
      }),
    ).rejects.toThrow(
      `was written by a newer acphub (schema ${newer}; this one knows up to ${PG_SCHEMA_VERSION}): upgrade acphub`,
    );
  });
});
