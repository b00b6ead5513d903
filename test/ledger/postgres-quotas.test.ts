// The cluster's quota counts in PostgreSQL (pg-quotas.ts, issue 37): holds asked for at once by
// two nodes never pass the limit (check and count in one step under a per-user lock), "opening"
// counts the user's open sessions (one session open on two nodes is one), a node whose heartbeat
// lapsed no longer counts, and a node starting again drops what it held; the prompts of a
// window are counted the same way.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

const STALE_MS = 10_000;

describe("PostgreSQL quota counts", () => {
  it("never admit past the limit when two nodes ask at once; dead nodes and restarts stop counting", async () => {
    const url = await server.database();
    const [one, two] = [
      await PostgresLedger.open(url),
      await PostgresLedger.open(url),
    ];
    try {
      await one.cluster.registerNode("n1", "http://n1");
      await two.cluster.registerNode("n2", "http://n2");
      const ask = (ledger: PostgresLedger, nodeId: string) =>
        ledger.cluster.quotas.hold({
          user: "alice",
          kind: "turns",
          max: 3,
          nodeId,
          staleMs: STALE_MS,
        });
      const ids = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2 ? ask(one, "n1") : ask(two, "n2"),
        ),
      );
      expect(ids.filter((id) => id !== undefined)).toHaveLength(3);
      const quotas = one.cluster.quotas;
      expect(await quotas.held("alice", "turns", STALE_MS)).toBe(3);
      await quotas.release(ids.find((id) => id !== undefined)!);
      expect(await quotas.held("alice", "turns", STALE_MS)).toBe(2);
      // n2's heartbeat lapses: its holds no longer count; n1 starting again drops its own.
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      await db.query("UPDATE acphub_nodes SET heartbeat = 0 WHERE id = 'n2'");
      const { rows } = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM acphub_quota_holds WHERE node_id = 'n1'",
      );
      await db.end();
      expect(await quotas.held("alice", "turns", STALE_MS)).toBe(
        Number(rows[0]!.n),
      );
      await one.cluster.registerNode("n1", "http://n1");
      expect(await quotas.held("alice", "turns", STALE_MS)).toBe(0);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("counts open sessions in 'opening' (one session on two nodes is one), and a window's prompts", async () => {
    const ledger = await PostgresLedger.open(await server.database());
    try {
      const { quotas } = ledger.cluster;
      await ledger.cluster.registerNode("n1", "http://n1");
      await ledger.cluster.registerNode("n2", "http://n2");
      const hold = (kind: string, max: number, nodeId: string, s?: string) =>
        quotas.hold({
          user: "bob",
          kind,
          max,
          nodeId,
          staleMs: STALE_MS,
          ...(s ? { sessionId: s } : {}),
        });
      await hold("live", 1_000, "n1", "s1");
      await hold("live", 1_000, "n2", "s1");
      expect(await hold("opening", 1, "n2")).toBeUndefined();
      expect(await hold("opening", 1, "n2", "s1")).toBe(0);
      expect(await hold("opening", 2, "n2")).toBeGreaterThan(0);
      expect(await hold("opening", 2, "n1")).toBeUndefined();
      const waits = await Promise.all(
        Array.from({ length: 12 }, () => quotas.take("bob", 5, 60_000)),
      );
      expect(waits.filter((w) => w === 0)).toHaveLength(5);
      for (const w of waits.filter((w) => w !== 0)) {
        expect(w).toBeGreaterThan(0);
        expect(w).toBeLessThanOrEqual(60_000);
      }
    } finally {
      await ledger.close();
    }
  });
});
