// The PostgreSQL batch as one statement (acphub_write_batch, schema 7): sessions interleaved in
// one batch keep their own seqs, a session that does not exist or that another cluster node
// holds is refused alone, a claim that commits while the batch waits on the session's row
// fences the batch (the leases are read after the lock, not before), a payload holding the
// separator fails its batch clearly and loses nothing else, a session's run of text chunks in
// a batch is one row (schema 15) that readers cut at any cursor, a stream's batches gather for
// 8 ms after each commit (a commit here costs the same whatever its size), and a schema-6 ledger
// upgrades.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerBatchReport } from "../../src/engine/ledger-port.js";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import {
  PG_SCHEMA_VERSION,
  pgMigrationSql,
} from "../../src/ledger/postgres/pg-schema.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { until } from "../helpers/hub.js";
import { session } from "./contract.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

// A connection of the test's own, beside the ledger's. A server stopped under a test that
// failed ends it with an error event, which the failure already reports.
async function direct(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

describe("PostgreSQL batch (one statement)", () => {
  it("gives interleaved sessions their own seqs and refuses only an unknown session's events", async () => {
    const ledger = await PostgresLedger.open(await server.database());
    try {
      await ledger.createSession(session("s1"));
      await ledger.createSession(session("s2"));
      await ledger.append("s2", "update", { i: 0 });
      const same = await Promise.allSettled([
        ledger.append("s1", "update", { i: 1 }),
        ledger.append("s2", "update", { i: 2 }),
        ledger.append("nope", "update", { i: 3 }),
        ledger.append("s1", "update", { i: 4 }),
        ledger.append("s2", "update", { i: 5 }),
      ]);
      expect(
        same.map((r) => (r.status === "fulfilled" ? r.value : r.reason.code)),
      ).toEqual([1, 2, "SESSION_NOT_FOUND", 2, 3]);
      expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
        1, 4,
      ]);
      expect((await ledger.events("s2")).map((e) => e.payload["i"])).toEqual([
        0, 2, 5,
      ]);
      expect(await ledger.getSession("s2")).toMatchObject({ eventCount: 3 });
      expect(await ledger.append("s2", "update", { i: 6 })).toBe(4);
    } finally {
      await ledger.close();
    }
  });

  it("gathers a stream's next batch for 8 ms after each commit, in order", async () => {
    const reports: LedgerBatchReport[] = [];
    const ledger = await PostgresLedger.open(await server.database(), {
      onBatch: (report) => reports.push(report),
    });
    try {
      await ledger.createSession(session("s"));
      const appends: Promise<number>[] = [];
      const end = Date.now() + 80;
      while (Date.now() < end) {
        appends.push(ledger.append("s", "update", { i: appends.length }));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect(await Promise.all(appends)).toEqual(appends.map((_, i) => i + 1));
      const batches = reports.filter((r) => r.sessionIds.includes("s"));
      expect(batches.length).toBeGreaterThanOrEqual(2);
      // Each batch starts 8 ms after the previous one ended (less a millisecond of the timers'
      // rounding each way); SQLite's 2 ms would show here.
      const gaps = batches
        .slice(1)
        .map((r, i) => r.startedAt - batches[i]!.endedAt);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(6);
    } finally {
      await ledger.close();
    }
  });

  it("fences the events of a session another node holds, and only those", async () => {
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    const db = await direct(url);
    try {
      for (const id of ["mine", "theirs", "lapsed"])
        await ledger.createSession(session(id));
      await db.query(
        `INSERT INTO acphub_leases (session_id, node_id, expires) VALUES
           ('mine', 'node-a', ${NOW_MS} + 60000), ('theirs', 'node-b', ${NOW_MS} + 60000),
           ('lapsed', 'node-b', ${NOW_MS} - 1)`,
      );
      ledger.cluster.fenceAs("node-a");
      const results = await Promise.allSettled([
        ledger.append("mine", "update", { i: 1 }),
        ledger.append("theirs", "update", { i: 2 }),
        ledger.append("lapsed", "update", { i: 3 }),
      ]);
      expect(results[0]).toEqual({ status: "fulfilled", value: 1 });
      expect(results[1]).toMatchObject({
        status: "rejected",
        reason: { message: expect.stringMatching(/run by another node now/) },
      });
      expect(results[2]).toEqual({ status: "fulfilled", value: 1 });
      expect(await ledger.events("theirs")).toEqual([]);
      expect(await ledger.getSession("theirs")).toMatchObject({
        eventCount: 0,
      });
    } finally {
      await db.end();
      await ledger.close();
    }
  });

  it("a claim that commits while the batch waits on the session's row fences the batch", async () => {
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    const claim = await direct(url);
    // pg_stat_activity is read once per transaction: polled inside the claim's, it would show
    // the batch's wait only if the batch waited already at the first look.
    const watch = await direct(url);
    try {
      await ledger.createSession(session("s1"));
      expect(await ledger.append("s1", "update", { i: 1 })).toBe(1);
      ledger.cluster.fenceAs("node-a");
      // Another node's claim, as src/ledger/postgres/pg-cluster.ts makes it: the session's row locked first.
      await claim.query("BEGIN");
      await claim.query(
        "SELECT id FROM acphub_sessions WHERE id = 's1' FOR UPDATE",
      );
      const append = ledger.append("s1", "update", { i: 2 }).then(
        (seq) => ({ seq }),
        (error: Error) => ({ error: error.message }),
      );
      await until(async () => {
        const { rows } = await watch.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
             AND query LIKE '%acphub_write_batch%'`,
        );
        return rows.length === 1;
      });
      await claim.query(
        `INSERT INTO acphub_leases (session_id, node_id, expires) VALUES ('s1', 'node-b', ${NOW_MS} + 60000)`,
      );
      await claim.query("COMMIT");
      expect(await append).toMatchObject({
        error: expect.stringMatching(/run by another node now/),
      });
      expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
        1,
      ]);
    } finally {
      await claim.end();
      await watch.end();
      await ledger.close();
    }
  });

  it("fails a batch whose payload holds U+001E with a clear error, and stores the next one", async () => {
    const ledger = await PostgresLedger.open(await server.database());
    try {
      await ledger.createSession(session("s1"));
      await expect(
        ledger.append("s1", "update", '{"a":"x"}\u001e{"b":1}'),
      ).rejects.toThrow(
        /1 rows but 1 kinds, 2 payloads and 1 first places \(a payload holds U\+001E: not JSON\)/,
      );
      expect(await ledger.append("s1", "update", { i: 1 })).toBe(1);
      expect((await ledger.events("s1")).map((e) => e.payload)).toEqual([
        { i: 1 },
      ]);
    } finally {
      await ledger.close();
    }
  });

  it("stores each session's run of text chunks in a batch as one row, every event keeping its seq", async () => {
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    const db = await direct(url);
    const chunk = (text: string) => ({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
      },
    });
    const tool = { update: { sessionUpdate: "tool_call", toolCallId: "t" } };
    const texts = (events: { text: string }[]) =>
      events.map((e) => {
        const { update } = JSON.parse(e.text) as {
          update: { content?: { text: string } };
        };
        return update.content?.text ?? "tool";
      });
    try {
      await ledger.createSession(session("s1"));
      await ledger.createSession(session("s2"));
      // One batch: s1's chunks on both sides of a tool call, s2's between them.
      const seqs = await Promise.all([
        ledger.append("s1", "update", chunk("a")),
        ledger.append("s2", "update", chunk("x")),
        ledger.append("s1", "update", chunk("b")),
        ledger.append("s1", "update", chunk("c")),
        ledger.append("s2", "update", chunk("y")),
        ledger.append("s1", "update", tool),
        ledger.append("s1", "update", chunk("d")),
        ledger.append("s1", "update", chunk("e")),
      ]);
      expect(seqs).toEqual([1, 1, 2, 3, 2, 4, 5, 6]);
      // A later batch: its run's first seq is not its session's first.
      expect(
        await Promise.all([
          ledger.append("s1", "update", chunk("f")),
          ledger.append("s1", "update", chunk("g")),
        ]),
      ).toEqual([7, 8]);
      const { rows } = await db.query<{
        id: string;
        seq: string;
        bytes: number;
        size: number;
      }>(
        `SELECT session_id AS id, seq, bytes, octet_length(payload::text) AS size
         FROM acphub_events ORDER BY session_id, seq`,
      );
      expect(rows.map((r) => `${r.id}:${r.seq}`)).toEqual([
        "s1:3",
        "s1:4",
        "s1:6",
        "s1:8",
        "s2:2",
      ]);
      for (const r of rows) expect(r.bytes).toBe(r.size);
      const counters = await db.query<{
        bytes: string;
        next_seq: string;
        event_count: string;
      }>(
        "SELECT bytes, next_seq, event_count FROM acphub_sessions WHERE id = 's1'",
      );
      expect(counters.rows[0]).toEqual({
        bytes: String(
          rows.filter((r) => r.id === "s1").reduce((n, r) => n + r.bytes, 0),
        ),
        next_seq: "9",
        event_count: "4",
      });
      // Readers see each run whole, and from a cursor inside it the chunks after the cursor.
      expect(texts(await ledger.read("s1"))).toEqual([
        "abc",
        "tool",
        "de",
        "fg",
      ]);
      expect(texts(await ledger.read("s1", { afterSeq: 1 }))).toEqual([
        "bc",
        "tool",
        "de",
        "fg",
      ]);
      expect(texts(await ledger.read("s1", { afterSeq: 5 }))).toEqual([
        "e",
        "fg",
      ]);
      expect(texts(await ledger.read("s1", { afterSeq: 7 }))).toEqual(["g"]);
      expect(texts(await ledger.read("s2", { afterSeq: 1 }))).toEqual(["y"]);
      expect(await ledger.append("s1", "update", chunk("h"))).toBe(9);
    } finally {
      await ledger.close();
      await db.end();
    }
  });

  it("upgrades a ledger at schema 6: its sessions keep their events and seqs go on", async () => {
    const url = await server.database();
    const db = await direct(url);
    try {
      for (let v = 1; v <= 6; v++) await db.query(pgMigrationSql(v));
      await db.query(
        `CREATE TABLE acphub_schema (version INTEGER NOT NULL); INSERT INTO acphub_schema VALUES (6);
         INSERT INTO acphub_sessions (id, agent, cwd, created_at, updated_at, state, request, event_count, bytes, next_seq)
           VALUES ('old', 'a', '/w', 1, 1, 'active', '{}', 2, 16, 3);
         INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
           VALUES ('old', 1, 'update', '{"i":1}', 7, 1), ('old', 2, 'update', '{"i":2}', 7, 1)`,
      );
      const ledger = await PostgresLedger.open(url);
      expect(await ledger.append("old", "update", { i: 3 })).toBe(3);
      expect((await ledger.events("old")).map((e) => e.payload["i"])).toEqual([
        1, 2, 3,
      ]);
      expect(await ledger.getSession("old")).toMatchObject({ eventCount: 3 });
      await ledger.close();
      const { rows } = await db.query("SELECT version FROM acphub_schema");
      expect(rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
      expect(PG_SCHEMA_VERSION).toBe(15);
    } finally {
      await db.end();
    }
  });
});
