// The PostgreSQL ledger's own faults: an unreachable server (one line, password masked), a
// restart mid-session (appends retry, nothing lost), a COMMIT whose answer is lost (the retried
// batch is not stored twice), a server gone past the retry budget, a
// ledger from a newer acphub, and a session followed live from another ledger connection, also
// after its LISTEN connection was lost (a restart, a killed backend: issue 38).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import {
  PG_SCHEMA_VERSION,
  pgMigrationSql,
} from "../../src/ledger/postgres/pg-schema.js";
import { commitCutter } from "../helpers/commit-cutter.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { session } from "./contract.js";

let server: PgServer;

// Until a connection of the database LISTENs (a fixed sleep was too short on a busy machine).
async function listening(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sql = `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND query ILIKE 'LISTEN %'`;
    while ((await client.query<{ n: number }>(sql)).rows[0]!.n === 0)
      await new Promise((r) => setTimeout(r, 20));
  } finally {
    await client.end();
  }
}
// The seqs a ledger's follower of one session is told, and a wait until they say enough.
function follower(ledger: PostgresLedger, sessionId: string) {
  const seqs: number[] = [];
  let check = () => undefined as void;
  ledger.follow(sessionId, (seq) => {
    seqs.push(seq);
    check();
  });
  return {
    until: (enough: (seqs: number[]) => boolean) =>
      new Promise<number[]>((resolve) => {
        check = () => void (enough(seqs) && resolve([...seqs]));
        check();
      }),
  };
}

beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

describe("PostgreSQL ledger faults", () => {
  it("says in one line that the server is unreachable, with the password masked", async () => {
    const url = `postgres://me:hunter22@127.0.0.1:1/acphub`;
    const error = await PostgresLedger.open(url, {
      connectTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "LEDGER_UNAVAILABLE" });
    expect(String((error as Error).message)).toMatch(
      /^ledger postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/acphub is unreachable/,
    );
    expect(String((error as Error).message)).not.toContain("hunter22");
  });

  it("migrates a ledger written by an older acphub on open (schema 1: no settings, no forkedFrom)", async () => {
    const url = await server.database();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(pgMigrationSql(1));
    await client.query(
      `CREATE TABLE acphub_schema (version INTEGER NOT NULL); INSERT INTO acphub_schema VALUES (1);
       INSERT INTO acphub_sessions (id, agent, cwd, created_at, updated_at, state, request, next_seq)
       VALUES ('old', 'a', '/w', 1, 1, 'active', '{}', 1)`,
    );
    const ledger = await PostgresLedger.open(url);
    expect(await ledger.getSession("old")).toMatchObject({
      settings: null,
      forkedFrom: null,
    });
    await ledger.saveSettings("old", { modes: { currentModeId: "m" } });
    expect(await ledger.append("old", "update", { i: 1 })).toBe(1);
    expect((await ledger.getSession("old"))?.settings).toEqual({
      modes: { currentModeId: "m" },
    });
    await ledger.close();
    const { rows } = await client.query("SELECT version FROM acphub_schema");
    expect(rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
    await client.end();
  });

  it("refuses a ledger written by a newer acphub", async () => {
    const url = await server.database();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "CREATE TABLE acphub_schema (version INTEGER NOT NULL); INSERT INTO acphub_schema VALUES (99)",
    );
    await client.end();
    await expect(PostgresLedger.open(url)).rejects.toThrow(
      /written by a newer acphub/,
    );
  });

  it("stores a batch once when the connection is lost after its COMMIT reached the server", async () => {
    const url = await server.database();
    const proxy = await commitCutter(url);
    const ledger = await PostgresLedger.open(proxy.url, { retryMs: 10_000 });
    try {
      await ledger.createSession(session("s1"));
      expect(await ledger.append("s1", "update", { i: 1 })).toBe(1);
      proxy.cutAfterNextCommit();
      expect(await ledger.append("s1", "update", { i: 2 })).toBe(2);
      expect(proxy.cuts).toBe(1);
      expect(await ledger.append("s1", "update", { i: 3 })).toBe(3);
      expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
        1, 2, 3,
      ]);
      expect(await ledger.getSession("s1")).toMatchObject({ eventCount: 3 });
      // Each batch deletes the ids of those before it: only the last one's is left.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query("SELECT id FROM acphub_batches");
      await client.end();
      expect(rows).toHaveLength(1);
    } finally {
      await ledger.close();
      await proxy.close();
    }
  });

  it("follows a session written through another connection (LISTEN/NOTIFY)", async () => {
    const url = await server.database();
    const writer = await PostgresLedger.open(url);
    const reader = await PostgresLedger.open(url);
    await writer.createSession(session("s1"));
    const seen = new Promise<number>((resolve) =>
      reader.follow("s1", (seq) => seq >= 2 && resolve(seq)),
    );
    await listening(url); // LISTEN is set up asynchronously
    await writer.append("s1", "update", { i: 1 });
    await writer.append("s1", "update", { i: 2 });
    expect(await seen).toBe(2);
    expect(
      (await reader.events("s1", { afterSeq: 1 })).map((e) => e.payload),
    ).toEqual([{ i: 2 }]);
    await writer.close();
    await reader.close();
  });

  it("follows again after the server restarts: the LISTEN connection is opened again and told of the next batch", async () => {
    const url = await server.database();
    const writer = await PostgresLedger.open(url, { retryMs: 20_000 });
    const reader = await PostgresLedger.open(url, { retryMs: 20_000 });
    try {
      await writer.createSession(session("s1"));
      const told = follower(reader, "s1");
      await listening(url);
      await writer.append("s1", "update", { i: 1 });
      await told.until((seqs) => seqs.includes(1));
      // Away for longer than a single quick retry (issue 38: it never listened again).
      await server.restart(1500);
      await listening(url);
      // Once listening again, the follower is told its session's last seq (a batch may have
      // been missed while no connection listened): 1 again. Then the next batch is NOTIFY's.
      await told.until((seqs) => seqs.filter((s) => s === 1).length === 2);
      await writer.append("s1", "update", { i: 2 });
      expect(await told.until((seqs) => seqs.includes(2))).toEqual([1, 1, 2]);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it("follows again after its LISTEN backend is killed, and catches up what was written before it listened again", async () => {
    const url = await server.database();
    const writer = await PostgresLedger.open(url);
    const reader = await PostgresLedger.open(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await writer.createSession(session("s1"));
      const told = follower(reader, "s1");
      await listening(url);
      await admin.query(
        `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
         WHERE datname = current_database() AND query ILIKE 'LISTEN %'`,
      );
      // Written while no connection of the reader listens: only the catch-up can tell it.
      await writer.append("s1", "update", { i: 1 });
      await told.until((seqs) => seqs.includes(1));
      await listening(url);
      await writer.append("s1", "update", { i: 2 });
      await told.until((seqs) => seqs.includes(2));
      expect((await reader.events("s1")).map((e) => e.payload["i"])).toEqual([
        1, 2,
      ]);
    } finally {
      await admin.end();
      await writer.close();
      await reader.close();
    }
  });

  it("retries appends while the server restarts, then fails clearly once it stays away", async () => {
    const url = await server.database();
    const ledger = await PostgresLedger.open(url, { retryMs: 20_000 });
    await ledger.createSession(session("s1"));
    await ledger.append("s1", "update", { i: 1 });
    await server.restart(300);
    expect(await ledger.append("s1", "update", { i: 2 })).toBe(2);
    expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
      1, 2,
    ]);
    await ledger.close();

    const short = await PostgresLedger.open(url, {
      retryMs: 300,
      connectTimeoutMs: 500,
    });
    await short.createSession(session("s2"));
    server.stopOnly();
    try {
      await expect(
        short.append("s2", "update", { i: 1 }),
      ).rejects.toMatchObject({
        code: "LEDGER_UNAVAILABLE",
        message: expect.stringMatching(
          /^ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ is unreachable/,
        ),
      });
    } finally {
      server.startAgain();
    }
    await short.close();
  });
});
