// Issue 37, honest outcomes: a turn whose runner died mid-turn (a node killed, or a single hub
// killed and restarted) ends `cancelled` on the wire — ACP has no other stop reason — but is
// recorded and shown as "interrupted: outcome unknown", with a notice that the agent may have
// acted before it stopped, naming the node that ran it. A user's own cancel stays "cancelled".
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import {
  connectClient,
  INIT,
  openSession,
  startHub,
  text,
  until,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { clusterFixture } from "../helpers/cluster.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const { node, client } = cluster;
const extra: { hubs: RunningHub[]; clients: HubTestClient[] } = {
  hubs: [],
  clients: [],
};
afterEach(async () => {
  for (const c of extra.clients.splice(0)) c.close();
  for (const h of extra.hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

const WATCH = {
  protocolVersion: 1,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
};
const NOTICE = "interrupted: outcome unknown";

// The turn ends the ledger recorded, in order.
async function turnEnds(url: string, sessionId: string) {
  const rows = await sql<{ payload: unknown }>(
    url,
    "SELECT payload FROM acphub_events WHERE session_id = $1 AND kind = 'turn_end' ORDER BY seq",
    [sessionId],
  );
  return rows.map((r) => r.payload);
}

// `acphub sessions show ID` (text, then --json) against a ledger.
async function show(home: string, id: string, env: Record<string, string>) {
  const textOut = await runCli(["sessions", "show", id], { home, env });
  const json = await runCli(["sessions", "show", id, "--json"], { home, env });
  expect([textOut.code, json.code, textOut.stderr, json.stderr]).toEqual([
    0,
    0,
    "",
    "",
  ]);
  const parsed = JSON.parse(json.stdout) as {
    events: { kind: string; payload: Record<string, unknown> }[];
  };
  const ends = parsed.events
    .filter((e) => e.kind === "turn_end")
    .map((e) => e.payload);
  return { text: textOut.stdout, ends };
}

// Sends the prompt until another node is no longer busy with its session (the dead node's
// lease lapses); every refusal meanwhile is the retryable busy one.
async function untilAnswered(c: HubTestClient, params: unknown) {
  for (let i = 0; ; i++) {
    try {
      return await c.agent.request<Record<string, unknown>>(
        "session/prompt",
        params,
      );
    } catch (error) {
      expect(error).toMatchObject({ data: { code: "PROMPT_IN_FLIGHT" } });
      if (i >= 300) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe("a turn whose runner died", { timeout: 120_000 }, () => {
  it("node A killed mid-turn: recorded and shown as interrupted (outcome unknown, naming A), cancelled on the wire; a user's cancel stays cancelled", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const params = {
      sessionId,
      prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
      _meta: { acphub: { idempotencyKey: "turn-1" } },
    };
    void onA.agent.request("session/prompt", params).catch(() => undefined);
    const onB = client(b.h);
    await onB.agent.request("initialize", WATCH);
    await onB.agent.request("session/load", {
      sessionId,
      cwd: a.home,
      mcpServers: [],
    });
    await until(() =>
      JSON.stringify(onB.updates(sessionId)).includes("started "),
    );
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    cluster.forget(a.h);
    // The client waiting for the turn's answer (a shim re-sends it on B with its key).
    const answer = await untilAnswered(onB, params);
    expect(answer).toEqual({
      stopReason: "cancelled",
      _meta: {
        acphub: {
          replayed: true,
          promptSeq: expect.any(Number),
          interrupted: true,
          outcome: "unknown",
          ranOn: "node-a",
        },
      },
    });
    const notes = JSON.stringify(onB.updates(sessionId));
    expect(notes).toContain(
      `${NOTICE} — node node-a, which ran this turn, stopped (or lost the database) before it ended. The agent may have acted (changed files, run commands)`,
    );
    expect(
      onB.notifications.find(
        (n) => n.method === "_acphub/session/state" && !n.params["running"],
      )?.params,
    ).toEqual({
      sessionId,
      running: false,
      stopReason: "cancelled",
      interrupted: "outcome_unknown",
      node: "node-a",
    });
    // A user's own cancel, on B: recorded as cancelled, not interrupted.
    const mine = onB.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "second " }, { sleep: 60_000 })),
    });
    await until(() =>
      JSON.stringify(onB.updates(sessionId)).includes("second "),
    );
    await onB.agent.notify("session/cancel", { sessionId });
    expect(await mine).toMatchObject({ stopReason: "cancelled" });
    const interrupted = {
      stopReason: "cancelled",
      interrupted: "outcome_unknown",
      node: "node-a",
    };
    expect(await turnEnds(url, sessionId)).toEqual([
      interrupted,
      expect.objectContaining({ stopReason: "cancelled" }),
    ]);
    const shown = await show(tempDir(), sessionId, {
      ACPHUB_LEDGER_URL: url,
    });
    expect(shown.ends).toEqual([
      interrupted,
      expect.not.objectContaining({ interrupted: expect.anything() }),
    ]);
    const lines = shown.text.split("\n");
    expect(
      lines.filter((l) => l.includes("[turn interrupted: outcome unknown")),
    ).toEqual([
      "  [turn interrupted: outcome unknown (node node-a stopped while it ran); the agent may have acted before it stopped]",
    ]);
    expect(shown.text).toContain(`[acphub] ${NOTICE} — node node-a`);
  });

  it("one hub (SQLite) killed mid-turn and restarted: the same honest record, without a node", async () => {
    const home = tempDir();
    mockConfig(home);
    const first = await startHub(home);
    extra.hubs.push(first);
    const c1 = connectClient(first, "ws");
    extra.clients.push(c1);
    const sessionId = await openSession(c1, home);
    void c1.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "begun " }, { sleep: 60_000 })),
      })
      .catch(() => undefined);
    await until(() => JSON.stringify(c1.updates(sessionId)).includes("begun "));
    first.child.kill("SIGKILL");
    await first.exited;
    extra.hubs.splice(0);
    const second = await startHub(home);
    extra.hubs.push(second);
    const c2 = connectClient(second, "ws");
    extra.clients.push(c2);
    await c2.agent.request("initialize", INIT);
    await c2.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    expect(JSON.stringify(c2.updates(sessionId))).toContain(
      `${NOTICE} — acphub stopped (killed or restarted) before this turn ended`,
    );
    second.child.kill("SIGKILL");
    await second.exited;
    extra.hubs.splice(0);
    const shown = await show(home, sessionId, {});
    expect(shown.ends).toEqual([
      { stopReason: "cancelled", interrupted: "outcome_unknown" },
    ]);
    expect(shown.text).toContain(
      "  [turn interrupted: outcome unknown; the agent may have acted before it stopped]",
    );
  });
});
