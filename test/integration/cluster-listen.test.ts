// A node's one LISTEN connection (issue 35, item 8; issue 38): the ledger's follow and the
// cluster's messages share one connection per node, and after a PostgreSQL restart it is opened
// again, so another node's turn reaches a client here through a NOTIFY — not through the
// heartbeat's catch-up, which this test puts minutes away.
import { describe, expect, it } from "vitest";
import {
  INIT,
  openSession,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { clusterFixture } from "../helpers/cluster.js";
import { partition } from "../helpers/pg-partition.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();

/** Heartbeats (and so the feed's catch-up read) 5 minutes apart: longer than the test runs. */
const LEASE_MS = 1_200_000;
const HEARTBEAT_MS = 300_000;

// How many connections of the database LISTEN now (0 while the server is down).
async function listening(url: string): Promise<number> {
  try {
    const rows = await sql<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND query ILIKE 'LISTEN %'`,
    );
    return rows[0]!.n;
  } catch {
    return 0;
  }
}

const said = (c: HubTestClient, sessionId: string) =>
  c
    .updates(sessionId)
    .map((u) => u["update"] as { sessionUpdate?: string; content?: unknown })
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.content as { text?: string }).text ?? "")
    .join("");

// A session opened on A (one turn: "before "), loaded by a client of B (its node at `bUrl`).
async function sharedSession(
  url: string,
  bUrl: string,
  leaseMs: number,
  heartbeatMs: number,
) {
  const a = await cluster.node(url, "node-a", leaseMs, heartbeatMs);
  const b = await cluster.node(bUrl, "node-b", leaseMs, heartbeatMs);
  const onA = cluster.client(a.h);
  const sessionId = await openSession(onA, a.home);
  await onA.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps({ text: "before " })),
  });
  const onB = cluster.client(b.h);
  await onB.agent.request("initialize", INIT);
  await onB.agent.request("session/load", {
    sessionId,
    cwd: a.home,
    mcpServers: [],
  });
  return { onA, onB, sessionId };
}

// A's next turn (`words` in 3 chunks), once B's client has all of it; what B's client was told.
async function nextTurnOnB(
  { onA, onB, sessionId }: Awaited<ReturnType<typeof sharedSession>>,
  words: string,
): Promise<string> {
  await onA.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps({ text: words, chunks: 3 })),
  });
  const lastA = onA.updates(sessionId).map(seqOf).at(-1);
  await until(() => onB.updates(sessionId).map(seqOf).at(-1) === lastA);
  expect(said(onB, sessionId)).toBe(said(onA, sessionId));
  return said(onB, sessionId);
}

describe("a node's LISTEN connection", () => {
  it("is one per node, and after PostgreSQL restarts it listens again: B hears A's next turn by NOTIFY", async () => {
    const url = await cluster.database();
    const shared = await sharedSession(url, url, LEASE_MS, HEARTBEAT_MS);
    const { onB, sessionId } = shared;
    expect(said(onB, sessionId)).toBe("before ");
    // Both nodes follow the session and hear the cluster's channel: one connection each.
    await until(async () => (await listening(url)) === 2);

    // Away for longer than one quick retry: the connection must be opened again with back-off.
    await cluster.restartDatabase(1500);
    await until(async () => (await listening(url)) === 2);

    // Bounded by the test's timeout, far below the next heartbeat: a NOTIFY told B.
    expect(await nextTurnOnB(shared, "after the restart ")).toMatch(
      /^before after the restart /,
    );
    expect(await listening(url)).toBe(2);
  }, 90_000);

  it("without its notifications, B's heartbeat reads a followed session again only once it grew: idle, not at all; A's next turn, to the end", async () => {
    const url = await cluster.database();
    const cut = await partition(url);
    cluster.afterNodes(() => cut.close());
    const shared = await sharedSession(url, cut.url, 4000, 200);
    cut.dropNotifications((channel) => channel === "acphub_events");
    const reads = cut.counting("AS payload, at FROM acphub_events");
    // Idle: once B has read what was stored, heartbeats (200 ms apart) pass without a read.
    await until(async () => {
      const before = reads();
      await new Promise((r) => setTimeout(r, 1000));
      return reads() === before;
    });
    const idle = reads();
    // No NOTIFY reached B: its heartbeat found the session grown and read it.
    await nextTurnOnB(shared, "after ");
    expect(reads()).toBeGreaterThan(idle);
  }, 90_000);
});
