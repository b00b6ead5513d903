// Several real `acphub serve` processes on one real PostgreSQL (issue 23): a session made on node
// A is watched live from node B mid-turn (every update once, in order, same seq); a prompt sent
// to B for A's idle session runs on A (issue 37: carried to the node that runs it, the agent
// stays) and streams to B's client (and live to A's); after kill -9
// of A a prompt on B takes A's session over and ends end_turn with the context restored; and
// `acphub nodes list` tells which nodes are up and what each runs.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig, startEditor, type TestEditor } from "../helpers/editor.js";
import {
  allowOnce,
  INIT,
  openSession,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";

const cluster = clusterFixture();
const { node, client } = cluster;
const editors: TestEditor[] = [];
// Runs before the fixture's own hook (after-hooks run in reverse): editors go before the nodes.
afterEach(async () => {
  for (const e of editors.splice(0)) {
    e.child.kill("SIGKILL");
    await e.exited;
  }
});

const said = (c: HubTestClient, sessionId: string) =>
  c
    .updates(sessionId)
    .filter(isAgentChunk)
    .map(
      (u) =>
        (u["update"] as { content?: { text?: string } }).content?.text ?? "",
    )
    .join("");

async function nodes(home: string, url: string) {
  const r = await runCli(["nodes", "list", "--json"], {
    home,
    env: { ACPHUB_LEDGER_URL: url },
  });
  expect(r.stderr).toBe("");
  return (
    JSON.parse(r.stdout) as {
      nodes: { id: string; alive: boolean; sessions: number }[];
    }
  ).nodes;
}

describe("acphub serve nodes on one PostgreSQL", () => {
  it("a session made on A is watched live from B mid-turn: every update once, in order, with A's seq", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    // The turn waits at each permission question until the test answers it: mid-turn for sure.
    const gates: (() => void)[] = [];
    const onA = client(a.h, (_m, params) => {
      return new Promise((resolve) =>
        gates.push(() => resolve(allowOnce(_m, params))),
      );
    });
    const sessionId = await openSession(onA, a.home);
    const ask = { permission: { title: "Edit", kind: "edit" } };
    const turn = onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps(
          { text: "one ", chunks: 3 },
          ask,
          { text: "two ", chunks: 3 },
          ask,
          { text: "three ", chunks: 3 },
        ),
      ),
    });
    await until(() => gates.length === 1);
    const onB = client(b.h);
    await onB.agent.request("initialize", INIT);
    await onB.agent.request("session/load", {
      sessionId,
      cwd: a.home,
      mcpServers: [],
    });
    expect(said(onB, sessionId)).toContain("one ");
    expect(said(onB, sessionId)).not.toContain("two ");
    const replayed = onB.updates(sessionId).length;
    gates[0]!();
    // B sees "two" while the turn waits at the second question on A: live, not replayed.
    await until(() => said(onB, sessionId).includes("two "));
    // The second question reaches A's client through the cluster's questions (issue 37).
    await until(() => gates.length === 2);
    expect(gates.length).toBe(2);
    gates[1]!();
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    await until(() => said(onB, sessionId).includes("three "));
    const seqsB = onB.updates(sessionId).map(seqOf);
    expect(seqsB).toEqual([...seqsB].sort((x, y) => x - y));
    expect(new Set(seqsB).size).toBe(seqsB.length - promptBlocks(onB));
    // The replay may give a run of chunks stored merged (PostgreSQL merges a batch's runs) as one
    // update at the run's last seq, as any compacted turn replays; what follows it live comes
    // chunk by chunk, at A's seqs.
    const chunksA = onA.updates(sessionId).filter(isAgentChunk).map(seqOf);
    const chunksB = onB.updates(sessionId).filter(isAgentChunk).map(seqOf);
    const liveB = onB.updates(sessionId).slice(replayed).filter(isAgentChunk);
    const lastReplayed = Math.max(
      0,
      ...chunksB.slice(0, chunksB.length - liveB.length),
    );
    expect(chunksB.every((seq) => chunksA.includes(seq))).toBe(true);
    expect(liveB.map(seqOf)).toEqual(
      chunksA.filter((seq) => seq > lastReplayed),
    );
    expect(said(onB, sessionId)).toBe(said(onA, sessionId));
    expect(said(onB, sessionId)).toMatch(/^one .*two .*three $/s);
    const listed = await nodes(a.home, url);
    expect(listed.map((n) => [n.id, n.alive, n.sessions])).toEqual([
      ["node-a", true, 1],
      ["node-b", true, 0],
    ]);
    const health = await fetch(`${b.h.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: "ok",
      node: "node-b",
      database: true,
    });
  });

  it("a prompt sent to B for A's idle session runs on A (no restore), streams to B's client and live to A's", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "from A " })),
    });
    const onB = client(b.h);
    await onB.agent.request("initialize", INIT);
    await onB.agent.request("session/load", {
      sessionId,
      cwd: a.home,
      mcpServers: [],
    });
    const before = onB.updates(sessionId).length;
    const result = await onB.agent.request("session/prompt", {
      sessionId,
      prompt: text("and then B?"),
    });
    expect(result).toMatchObject({ stopReason: "end_turn" });
    const reply = JSON.stringify(onB.updates(sessionId).slice(before));
    expect(reply).toContain("and then B?");
    expect(reply).not.toContain("This session was restored"); // A's agent, warm
    await until(() =>
      JSON.stringify(onA.updates(sessionId)).includes("and then B?"),
    );
    const last = (c: HubTestClient) => c.updates(sessionId).map(seqOf).at(-1);
    await until(() => last(onA) === last(onB));
    const listed = await nodes(a.home, url);
    expect(listed.find((n) => n.id === "node-b")?.sessions).toBe(0);
    expect(listed.find((n) => n.id === "node-a")?.sessions).toBe(1);
    // A cancel sent to A for the turn B's client started (it runs on A) ends it.
    const long = onB.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "long on B " }, { sleep: 60_000 })),
    });
    await until(() => said(onA, sessionId).includes("long on B "));
    await onA.agent.notify("session/cancel", { sessionId });
    expect(await long).toMatchObject({ stopReason: "cancelled" });
  });

  it("after kill -9 of A, a prompt on B takes A's session over and ends end_turn with the context restored; the turn A ran ends cancelled", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "remember the lighthouse " })),
    });
    const onB = client(b.h);
    await onB.agent.request("initialize", INIT);
    await onB.agent.request("session/load", {
      sessionId,
      cwd: a.home,
      mcpServers: [],
    });
    void onA.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
      })
      .catch(() => undefined);
    await until(() => said(onB, sessionId).includes("started "));
    // While A runs the turn, B refuses a second one and names the node.
    await expect(
      onB.agent.request("session/prompt", { sessionId, prompt: text("x") }),
    ).rejects.toMatchObject({ message: expect.stringContaining("node-a") });
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    cluster.forget(a.h);
    let result: unknown;
    // Refused while the lease has not lapsed yet (cluster.leaseMs 2 s); then taken over.
    await until(async () => {
      result = await onB.agent
        .request("session/prompt", {
          sessionId,
          prompt: text("what do you remember?"),
        })
        .catch(() => undefined);
      return result !== undefined;
    });
    expect(result).toMatchObject({ stopReason: "end_turn" });
    const all = said(onB, sessionId);
    expect(all).toContain(
      "interrupted: outcome unknown — node node-a, which ran this turn, stopped",
    );
    expect(all).toContain("This session was restored");
    expect(all.split("remember the lighthouse").length).toBeGreaterThan(2);
    const listed = await nodes(b.home, url);
    expect(listed.map((n) => [n.id, n.alive, n.sessions])).toEqual([
      ["node-a", false, 0],
      ["node-b", true, 1],
    ]);
  }, 90_000);

  it("the stdio shim given both nodes survives kill -9 of the node it was on", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const home = tempDir();
    mockConfig(home);
    const editor = startEditor(home, {
      args: ["--hub", `${a.h.url},${b.h.url}`],
      env: { ACPHUB_TOKEN: CLUSTER_TOKEN },
    });
    editors.push(editor);
    await editor.agent.request("initialize", INIT);
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("first, on node A"),
    });
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    cluster.forget(a.h);
    const result = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("then on node B"),
    });
    expect(result).toMatchObject({ stopReason: "end_turn" });
    const shown = editor
      .updates()
      .filter(isAgentChunk)
      .map((u) => (u["update"] as { content: { text: string } }).content.text)
      .join("");
    expect(shown).toContain("This session was restored");
    expect(shown).toContain("User: first, on node A");
    expect(shown).toMatch(/then on node B$/);
    const listed = await nodes(b.home, url);
    expect(listed.find((n) => n.id === "node-b")?.sessions).toBe(1);
  }, 90_000);

  it("SIGTERM drains: the running turn ends end_turn, then the node leaves nodes list", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const turn = onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "draining " }, { sleep: 1500 }, { text: "done" }),
      ),
    });
    await until(() => said(onA, sessionId).includes("draining "));
    a.h.child.kill("SIGTERM");
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    expect(await a.h.exited).toBe(0);
    cluster.forget(a.h);
    expect((await nodes(b.home, url)).map((n) => n.id)).toEqual(["node-b"]);
  }, 90_000);

  it("three nodes: a turn prompted on C for A's session runs on A and reaches the clients on A, B and C, same seqs", async () => {
    const url = await cluster.database();
    const [a, b, c] = [
      await node(url, "node-a"),
      await node(url, "node-b"),
      await node(url, "node-c"),
    ];
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "on A " })),
    });
    const [onB, onC] = [client(b.h), client(c.h)];
    for (const x of [onB, onC]) {
      await x.agent.request("initialize", INIT);
      await x.agent.request("session/load", {
        sessionId,
        cwd: a.home,
        mcpServers: [],
      });
    }
    await onC.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "on C ", chunks: 4 })),
    });
    const lastC = onC.updates(sessionId).map(seqOf).at(-1);
    for (const x of [onA, onB])
      await until(() => x.updates(sessionId).map(seqOf).at(-1) === lastC);
    const agentSeqs = (x: HubTestClient) =>
      x
        .updates(sessionId)
        .filter(isAgentChunk)
        .map(seqOf)
        .filter((seq) => seq > 0); // an unstored notice (no seq) is live only
    // The turn ran on A; the other nodes read it from the ledger: a read after the turn's
    // compaction gets its later chunks merged into one update at the last one's seq. So each
    // node's chunks carry seqs A's clients saw, in order, ending at the same one, same text.
    for (const x of [onB, onC]) {
      const seqs = agentSeqs(x);
      expect(seqs.every((seq) => agentSeqs(onA).includes(seq))).toBe(true);
      expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
      expect(seqs.at(-1)).toBe(agentSeqs(onA).at(-1));
    }
    expect(said(onB, sessionId)).toMatch(/^on A .*on C $/s);
    expect(said(onA, sessionId)).toBe(said(onB, sessionId));
    const listed = await nodes(a.home, url);
    expect(listed.map((n) => [n.id, n.sessions])).toEqual([
      ["node-a", 1],
      ["node-b", 0],
      ["node-c", 0],
    ]);
  }, 120_000);
});

function isAgentChunk(u: Record<string, unknown>): boolean {
  return (
    (u["update"] as { sessionUpdate?: string }).sessionUpdate ===
    "agent_message_chunk"
  );
}

// Prompt blocks share their prompt's seq: the number of repeats to allow.
function promptBlocks(c: HubTestClient): number {
  const seqs = c
    .updates()
    .filter(
      (u) =>
        (u["update"] as { sessionUpdate?: string }).sessionUpdate ===
        "user_message_chunk",
    )
    .map(seqOf);
  return seqs.length - new Set(seqs).size;
}
