// A node's one LISTEN connection (issue 35, item 8; issue 38): the ledger's follow and the
// cluster's messages share one connection per node, and after a PostgreSQL restart it is opened
// again, so another node's turn reaches a client here through a NOTIFY — not through the
// heartbeat's catch-up, which this test puts minutes away. Without notifications, that
// catch-up reads the sessions that grew, and again those whose read failed.
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

/** The query of B's feed reading a session's events (pg-ledger.ts readRows; a page's read
 *  has `seq < $3`). */
const READ_EVENTS = "seq <= $3 ORDER BY seq";
/** A heartbeat's look at the followed sessions' last seqs (pg-cluster.ts lastSeqs). */
const LAST_SEQS = "next_seq - 1 AS last FROM acphub_sessions";
/** B's heartbeats: the steps from one look at the sessions' growth to B's retry (some 50 ms)
 *  fit between two looks. */
const RETRY_BEAT_MS = 2000;

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

// Idle: once B has read what was stored, a second passes without a read (`reads` counts B's
// reads of events).
async function untilIdle(reads: () => number): Promise<void> {
  await until(async () => {
    const before = reads();
    await new Promise((r) => setTimeout(r, 1000));
    return reads() === before;
  });
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
  return { onA, onB, sessionId, b };
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
    await untilIdle(reads);
    const idle = reads();
    // No NOTIFY reached B: its heartbeat found the session grown and read it.
    await nextTurnOnB(shared, "after ");
    expect(reads()).toBeGreaterThan(idle);
  }, 90_000);

  it("a read of B's that failed is read again at B's next heartbeat, even when that heartbeat's look at the sessions' growth predates the turn: B's client gets A's turn whole and in order before the next look", async () => {
    const url = await cluster.database();
    const cut = await partition(url);
    cluster.afterNodes(() => cut.close());
    const shared = await sharedSession(url, cut.url, 30_000, RETRY_BEAT_MS);
    const { onA, onB, sessionId, b } = shared;
    await untilIdle(cut.counting("AS payload, at FROM acphub_events"));
    const before = onB.updates(sessionId).length;
    // A heartbeat of B looks at the sessions' growth: its answer is taken now (before the turn),
    // held back. A look taken after the turn would find the session grown and read it anyway;
    // this one finds it not grown past what B read, so only the failed read's retry
    // (feed.ts `failed`) reads it at this heartbeat.
    const looks = cut.counting(LAST_SEQS);
    const release = await cut.holdReply(LAST_SEQS);
    // A's next turn: its first notification reaches B, whose read on it fails; no later one
    // arrives.
    let told = 0;
    cut.dropNotifications(
      (channel) => channel === "acphub_events" && ++told > 1,
    );
    const failed = cut.failReply(READ_EVENTS);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "after a failed read ", chunks: 3 })),
    });
    await failed;
    await until(() => b.h.stderr().includes("cluster: follow failed"));
    expect(said(onB, sessionId)).toBe("before ");
    // The held look's answer comes: B's client has the whole turn before B's next look.
    release();
    const lastA = onA.updates(sessionId).map(seqOf).at(-1);
    const whole = () => onB.updates(sessionId).map(seqOf).at(-1) === lastA;
    await until(() => whole() || looks() > 1);
    expect(looks()).toBe(1);
    expect(said(onB, sessionId)).toBe(said(onA, sessionId));
    // Each update once, in the order of its seq.
    const seqs = onB.updates(sessionId).slice(before).map(seqOf);
    expect(seqs.length).toBeGreaterThan(0);
    for (let i = 1; i < seqs.length; i++)
      expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
  }, 90_000);
});
