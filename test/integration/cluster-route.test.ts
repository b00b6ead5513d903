// Issue 37: a cluster moves prompts, not agents. A request for a session that another live node
// runs (prompt, cancel, set_mode, fork, close) is carried to that node and answered from there:
// the agent stays where it runs, warm (one process, no restore notice, its own memory of earlier
// turns). A request sent again with its operation id runs once. `acphub sessions move` moves a
// session's agent on an admin's word only; a runner that dies mid-request is taken over.
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  INIT,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const { node, client } = cluster;
// What a client is shown when an agent's session is restored (a new agent session, primed).
const RESTORED =
  /This session was restored|could not resume or load this session/;

// Everything the agent said to a client in a session, joined.
const said = (c: HubTestClient, sessionId: string) =>
  c
    .updates(sessionId)
    .filter(
      (u) =>
        (u["update"] as { sessionUpdate?: string }).sessionUpdate ===
        "agent_message_chunk",
    )
    .map(
      (u) =>
        (u["update"] as { content?: { text?: string } }).content?.text ?? "",
    )
    .join("");

// The agent process ids the mock reported (its `pid` step) in what a client was shown.
const pids = (shown: string) =>
  [...shown.matchAll(/pid: (\d+)/g)].map((m) => Number(m[1]));

// A client on `h` that loaded the session.
async function loaded(
  h: Parameters<typeof client>[0],
  id: string,
  cwd: string,
) {
  const c = client(h);
  await c.agent.request("initialize", INIT);
  await c.agent.request("session/load", { sessionId: id, cwd, mcpServers: [] });
  return c;
}

// `acphub nodes list --json` as [id, sessions] pairs.
async function leases(home: string, url: string) {
  const r = await runCli(["nodes", "list", "--json"], {
    home,
    env: { ACPHUB_LEDGER_URL: url },
  });
  return (
    JSON.parse(r.stdout) as { nodes: { id: string; sessions: number }[] }
  ).nodes.map((n) => [n.id, n.sessions]);
}

describe("a cluster carries requests to the node that runs the session", () => {
  it("prompted on A, B, A, B: one agent process the whole time, no restore, it remembers turn one itself; B answers after its client saw the turn", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const onB = await loaded(b.h, sessionId, a.home);
    const turn = (c: HubTestClient, word: string) =>
      c.agent.request<{ stopReason: string }>("session/prompt", {
        sessionId,
        prompt: text(
          steps({ pid: true }, { history: true }, { text: `said-${word} ` }),
        ),
      });
    for (const [c, word] of [
      [onA, "one"],
      [onB, "two"],
      [onA, "three"],
      [onB, "four"],
    ] as const) {
      expect(await turn(c, word)).toMatchObject({ stopReason: "end_turn" });
      // Every update of the turn reached this client before its answer did.
      expect(said(c, sessionId)).toContain(`said-${word} `);
    }
    await until(() => said(onA, sessionId).includes("said-four "));
    const all = said(onB, sessionId);
    const seen = pids(all);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(1);
    expect(all).not.toMatch(RESTORED);
    expect(said(onA, sessionId)).not.toMatch(RESTORED);
    // The fourth turn's history is the agent's own: four prompts, the first one turn one's.
    const history = all.split("history: ").at(-1)!.split("\n")[0]!;
    const prompts = history.split(" | ");
    expect(prompts).toHaveLength(4);
    expect(prompts[0]).toContain("said-one");
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 1],
      ["node-b", 0],
    ]);
  }, 90_000);

  it("session/cancel and session/set_mode sent to B reach the turn and the session on A", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a", 2000, undefined, ["--modes"]);
    const b = await node(url, "node-b", 2000, undefined, ["--modes"]);
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ pid: true })),
    });
    const onB = await loaded(b.h, sessionId, a.home);
    // A turn B started (it runs on A), then cancelled on B.
    const long = onB.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "long " }, { sleep: 60_000 })),
    });
    await until(() => said(onA, sessionId).includes("long "));
    await onB.agent.notify("session/cancel", { sessionId });
    expect(await long).toMatchObject({ stopReason: "cancelled" });
    // A turn A's client started, cancelled on B.
    const fromA = onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "mine " }, { sleep: 60_000 })),
    });
    await until(() => said(onB, sessionId).includes("mine "));
    await onB.agent.notify("session/cancel", { sessionId });
    expect(await fromA).toMatchObject({ stopReason: "cancelled" });
    await onB.agent.request("session/set_mode", { sessionId, modeId: "code" });
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ state: true }, { pid: true })),
    });
    const shown = said(onA, sessionId);
    expect(shown.split("state: ").at(-1)).toContain('"code"');
    expect(new Set(pids(shown)).size).toBe(1);
    expect(shown).not.toMatch(RESTORED);
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 1],
      ["node-b", 0],
    ]);
  }, 90_000);

  it("session/fork and session/close sent to B are answered by A", async () => {
    const url = await cluster.database();
    const flags = ["--session-capabilities", "fork,close"];
    const a = await node(url, "node-a", 2000, undefined, flags);
    const b = await node(url, "node-b", 2000, undefined, flags);
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ pid: true }, { text: "parent " })),
    });
    onA.close(); // nobody is attached on A: B's close ends the agent's session there
    const onB = await loaded(b.h, sessionId, a.home);
    const fork = await onB.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId, cwd: a.home, mcpServers: [] },
    );
    // The fork lives where its parent's agent runs: A holds its lease, and prompts from B run there.
    await onB.agent.request("session/prompt", {
      sessionId: fork.sessionId,
      prompt: text(steps({ pid: true })),
    });
    const parentPid = pids(said(onB, sessionId))[0];
    expect(pids(said(onB, fork.sessionId))).toEqual([parentPid]);
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 2],
      ["node-b", 0],
    ]);
    // Closing on B ends the agent's session on A: the next turn restores it there.
    expect(await onB.agent.request("session/close", { sessionId })).toEqual({});
    const [row] = await sql<{ state: string }>(
      url,
      "SELECT state FROM acphub_sessions WHERE id = $1",
      [sessionId],
    );
    expect(row?.state).toBe("closed");
    const again = await loaded(b.h, sessionId, a.home);
    const before = said(again, sessionId).length;
    await again.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ pid: true })),
    });
    const after = said(again, sessionId).slice(before);
    expect(after).toMatch(RESTORED);
    expect(pids(after)).toEqual([parentPid]); // restored on A's agent, not B's
  }, 90_000);

  it("a request sent again with its operation id runs once and is answered with the first run's answer", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const send = (op: string, word: string) =>
      sql(
        url,
        `WITH ins AS (INSERT INTO acphub_requests (op_id, session_id, from_node, to_node, method, params, created)
           VALUES ($1, $2, 'node-x', 'node-a', 'session/prompt', $3, 0) ON CONFLICT (op_id) DO NOTHING)
         SELECT pg_notify('acphub_cluster', json_build_object('to', 'node-a', 'request', $1::text)::text)`,
        [
          op,
          sessionId,
          JSON.stringify({
            sessionId,
            prompt: text(steps({ text: `${word} `, chunks: 2 })),
          }),
        ],
      );
    const answer = async (op: string) => {
      let rows: { state: string; answer: string | null }[] = [];
      await until(async () => {
        rows = await sql(
          url,
          "SELECT state, answer FROM acphub_requests WHERE op_id = $1",
          [op],
        );
        return rows[0]?.state === "done";
      });
      return JSON.parse(rows[0]!.answer!) as Record<string, unknown>;
    };
    await Promise.all([send("op-1", "once"), send("op-1", "once")]);
    const first = await answer("op-1");
    expect(first).toMatchObject({ result: { stopReason: "end_turn" } });
    expect(first["lastSeq"]).toEqual(expect.any(Number));
    await send("op-1", "once"); // after the answer: a lost answer asked for again
    await send("op-2", "barrier"); // answered after A took every notice before it
    await answer("op-2");
    expect(await answer("op-1")).toEqual(first);
    const prompts = await sql<{ n: string }>(
      url,
      "SELECT count(*) AS n FROM acphub_events WHERE session_id = $1 AND kind = 'prompt'",
      [sessionId],
    );
    expect(Number(prompts[0]!.n)).toBe(2);
    await until(() => said(onA, sessionId).includes("barrier "));
    expect(said(onA, sessionId).split("once ").length).toBe(2);
  }, 90_000);

  it("`acphub sessions move ID --to NODE` moves the agent (new process there, restored), for an admin only, to a live node only", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ pid: true }, { text: "first " })),
    });
    const [pidOnA] = pids(said(onA, sessionId));
    const env = { ACPHUB_LEDGER_URL: url, ACPHUB_TOKEN: CLUSTER_TOKEN };
    const move = (args: string[], extra: Record<string, string> = {}) =>
      runCli(["sessions", "move", sessionId, ...args], {
        home: a.home,
        env: { ...env, ...extra },
      });
    const unknown = await move(["--to", "node-z", "--hub", a.h.url]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no live node named "node-z"');
    expect(unknown.stderr).toContain("node-a, node-b");
    const added = await runCli(["users", "add", "bob", "--json"], {
      home: a.home,
      env: { ACPHUB_LEDGER_URL: url },
    });
    const bob = (JSON.parse(added.stdout) as { token: string }).token;
    // B learns of a user added meanwhile within its directory's refresh (a second).
    let refused = await move(["--to", "node-b", "--hub", b.h.url], {
      ACPHUB_TOKEN: bob,
    });
    for (let i = 0; i < 20 && refused.stderr.includes("(401)"); i++) {
      await new Promise((r) => setTimeout(r, 250));
      refused = await move(["--to", "node-b", "--hub", b.h.url], {
        ACPHUB_TOKEN: bob,
      });
    }
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("only an admin");
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 1],
      ["node-b", 0],
    ]);
    const moved = await move(["--to", "node-b", "--hub", a.h.url, "--json"]);
    expect(moved.stderr).toBe("");
    expect(JSON.parse(moved.stdout)).toEqual({
      sessionId,
      node: "node-b",
      from: "node-a",
    });
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 0],
      ["node-b", 1],
    ]);
    // A's client is answered by B now: another process, primed with the transcript (the
    // agent's history is the restore notice and the conversation, then this prompt).
    const before = said(onA, sessionId).length;
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ pid: true }, { history: true })),
    });
    const after = said(onA, sessionId).slice(before);
    expect(after).toMatch(RESTORED);
    expect(after).toContain("first ");
    const [pidOnB] = pids(after);
    expect(pidOnB).not.toBe(pidOnA);
    // Back to A through the ledger (no --hub): the command line asks the node itself.
    const back = await move(["--to", "node-a"]);
    expect(back.stderr).toBe("");
    expect(back.stdout).toBe("moved to node-a\n");
    expect(await leases(a.home, url)).toEqual([
      ["node-a", 1],
      ["node-b", 0],
    ]);
  }, 120_000);

  it("a prompt carried to A when A is killed mid-turn ends cancelled (interrupted) on B, which takes the session over", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    await onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "remember the lighthouse " })),
    });
    const onB = await loaded(b.h, sessionId, a.home);
    const carried = onB.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
    });
    await until(() => said(onB, sessionId).includes("started "));
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    cluster.forget(a.h);
    expect(await carried).toMatchObject({
      stopReason: "cancelled",
      _meta: {
        acphub: { interrupted: true, outcome: "unknown", ranOn: "node-a" },
      },
    });
    const next = await onB.agent.request("session/prompt", {
      sessionId,
      prompt: text("what do you remember?"),
    });
    expect(next).toMatchObject({ stopReason: "end_turn" });
    const all = said(onB, sessionId);
    expect(all).toMatch(RESTORED);
    expect(all.split("remember the lighthouse").length).toBeGreaterThan(2);
    const ends = await sql<{ payload: unknown }>(
      url,
      "SELECT payload FROM acphub_events WHERE session_id = $1 AND kind = 'turn_end' ORDER BY seq",
      [sessionId],
    );
    expect(ends.map((e) => e.payload)).toEqual([
      expect.objectContaining({ stopReason: "end_turn" }),
      {
        stopReason: "cancelled",
        interrupted: "outcome_unknown",
        node: "node-a",
      },
      expect.objectContaining({ stopReason: "end_turn" }),
    ]);
  }, 90_000);
});
