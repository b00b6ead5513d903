// Issue 37, questions to every node: a permission question of a turn running on node A reaches
// the clients on node B that may answer it (drivers, never viewers); the first answer on any
// node is the agent's and the audit log says who gave it on which node; a later answer is told
// "already answered by bob on node-b" (and so, on one hub without a cluster, is a second client);
// a cancelled turn, or its node's death, withdraws the question on B; no row is left in
// acphub_questions once a question ended.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import {
  allowOnce,
  connectClient,
  INIT,
  startHub,
  text,
  until,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { TEAM_WORK } from "../helpers/team.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const hubs: RunningHub[] = [];
const clients: HubTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

type OnRequest = Parameters<typeof connectClient>[2];

// Two nodes with users on one database, and the users' tokens.
async function team(users: string[], extra: Record<string, unknown> = {}) {
  const url = await cluster.database();
  const env = { ACPHUB_LEDGER_URL: url, ACPHUB_TOKEN: CLUSTER_TOKEN };
  const start = async (id: string) => {
    const home = tempDir();
    mockConfig(home, [], {
      cluster: { leaseMs: 2000 },
      users: { roots: { "*": [TEAM_WORK] } },
      ...extra,
    });
    const h = await startHub(home, ["--node-id", id], env);
    hubs.push(h);
    return { h, home };
  };
  // Users first: a node reads its users when it starts.
  const home = tempDir();
  mockConfig(home);
  const tokens: Record<string, string> = { admin: CLUSTER_TOKEN };
  for (const name of users) {
    const out = await runCli(["users", "add", name, "--json"], { home, env });
    tokens[name] = (JSON.parse(out.stdout) as { token: string }).token;
  }
  const a = await start("node-a");
  const b = await start("node-b");
  const connect = (h: RunningHub, user: string, on?: OnRequest) => {
    const c = connectClient(
      { acpUrl: h.acpUrl, token: tokens[user]! },
      "ws",
      on,
    );
    clients.push(c);
    return c;
  };
  return { url, env, a, b, connect };
}

// The session's text as one client was sent it.
const said = (c: HubTestClient, sessionId: string) =>
  JSON.stringify(c.updates(sessionId));

async function load(c: HubTestClient, sessionId: string): Promise<void> {
  await c.agent.request("initialize", INIT);
  await c.agent.request("session/load", {
    sessionId,
    cwd: TEAM_WORK,
    mcpServers: [],
  });
}

// The rows left in acphub_questions.
async function questionRows(url: string): Promise<number> {
  const rows = await sql<{ n: string }>(
    url,
    "SELECT count(*) AS n FROM acphub_questions",
  );
  return Number(rows[0]!.n);
}

// A handler that holds each question until the test answers it (ignoring a cancel, as a
// person still looking at the dialog would).
function held() {
  const asked: (() => void)[] = [];
  const on: OnRequest = (method, params) =>
    new Promise((resolve) =>
      asked.push(() => resolve(allowOnce(method, params))),
    );
  return { on, asked };
}

const ask = { permission: { title: "Edit it", kind: "edit" } };

describe("permission questions on every node", { timeout: 60_000 }, () => {
  it("a question of a turn on A is answered by a driver on B (audited with node-b), never asked of a viewer; A's late answer is told who was first", async () => {
    const { url, env, a, b, connect } = await team(["bob", "vic"]);
    const admin = held();
    const onA = connect(a.h, "admin", admin.on);
    await onA.agent.request("initialize", INIT);
    const { sessionId } = await onA.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    for (const [user, role] of [
      ["bob", "driver"],
      ["vic", "viewer"],
    ])
      await onA.agent.request("_acphub/session/share", {
        sessionId,
        user,
        role,
      });
    const bobAsked: Record<string, unknown>[] = [];
    const bob = connect(b.h, "bob", (method, params) => {
      bobAsked.push(params);
      const options = params["options"] as { optionId: string; kind: string }[];
      const reject = options.find((o) => o.kind === "reject_once")!;
      return { outcome: { outcome: "selected", optionId: reject.optionId } };
    });
    const vicAsked: string[] = [];
    const vic = connect(b.h, "vic", (method) => {
      vicAsked.push(method);
      return undefined;
    });
    await load(bob, sessionId);
    await load(vic, sessionId);
    const turn = await onA.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "start " }, ask, { text: "after" })),
      },
    );
    // bob's answer (reject once) is the agent's: the turn ends as a refusal does.
    expect(turn.stopReason).toBe("end_turn");
    expect(bobAsked).toMatchObject([
      { sessionId, toolCall: { title: "Edit it" } },
    ]);
    expect(said(onA, sessionId)).toMatch(/permission denied \(reject/);
    expect(said(onA, sessionId)).not.toContain('"text":"after"');
    await until(() => said(bob, sessionId).includes("permission denied"));
    // A's client was asked too, at once; its answer now comes too late.
    expect(admin.asked).toHaveLength(1);
    admin.asked[0]!();
    await until(() => said(onA, sessionId).includes("already answered by"));
    const late = onA
      .updates(sessionId)
      .find((u) => JSON.stringify(u).includes("already answered by"))!;
    expect(late).toMatchObject({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: {
          text: expect.stringContaining(
            'already answered by bob on node-b: your answer to "Edit it" was not used',
          ) as unknown,
        },
      },
      _meta: { acphub: { answeredBy: "bob", notice: { severity: "warning" } } },
    });
    expect(vicAsked).toEqual([]);
    const audit = JSON.parse(
      (await runCli(["audit", "--json"], { home: a.home, env })).stdout,
    ) as { user: string; action: string; detail: Record<string, unknown> }[];
    expect(audit.filter((e) => e.action === "permission.answer")).toMatchObject(
      [
        {
          user: "bob",
          detail: { node: "node-b", title: "Edit it", kind: "reject_once" },
        },
      ],
    );
    await until(async () => (await questionRows(url)) === 0);
  });

  it("two drivers on B: the first answer wins, the second is told 'already answered by'; A's own client is cancelled", async () => {
    const { url, a, b, connect } = await team(["bob"]);
    const cancelled: string[] = [];
    const onA = connect(a.h, "admin", (_m, _p, signal) => {
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          cancelled.push("admin");
          reject(new Error("cancelled"));
        }),
      );
    });
    await onA.agent.request("initialize", INIT);
    const { sessionId } = await onA.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await onA.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const first = held();
    const second = held();
    const bob1 = connect(b.h, "bob", first.on);
    const bob2 = connect(b.h, "bob", second.on);
    await load(bob1, sessionId);
    await load(bob2, sessionId);
    const turn = onA.agent.request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(steps(ask, { text: "after" })),
    });
    await until(() => first.asked.length === 1 && second.asked.length === 1);
    first.asked[0]!();
    expect((await turn).stopReason).toBe("end_turn");
    expect(said(onA, sessionId)).toMatch(/permission granted \(allow/);
    await until(() => cancelled.length === 1);
    second.asked[0]!();
    await until(() =>
      said(bob2, sessionId).includes(
        "already answered by bob on node-b: your answer",
      ),
    );
    expect(said(bob1, sessionId)).not.toContain("already answered");
    await until(async () => (await questionRows(url)) === 0);
  });

  it("a cancelled turn on A withdraws its question on B: B's client gets $/cancel_request", async () => {
    const { url, a, b, connect } = await team(["bob"]);
    const onA = connect(a.h, "admin", (_m, _p, signal) => {
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(new Error("cancelled"))),
      );
    });
    await onA.agent.request("initialize", INIT);
    const { sessionId } = await onA.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await onA.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const asked: string[] = [];
    const withdrawn: string[] = [];
    const bob = connect(b.h, "bob", (_m, _p, signal) => {
      asked.push("bob");
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          withdrawn.push("bob");
          reject(new Error("cancelled"));
        }),
      );
    });
    await load(bob, sessionId);
    const turn = onA.agent.request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(steps(ask, { text: "after" })),
    });
    await until(() => asked.length === 1);
    expect(await questionRows(url)).toBe(1);
    await onA.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await until(() => withdrawn.length === 1);
    await until(async () => (await questionRows(url)) === 0);
  });
});

describe("nobody on the runner's node", { timeout: 60_000 }, () => {
  it("the policy's fallback waits while a client on B is asked: B's answer after serve.answerGraceMs is the agent's", async () => {
    const { url, a, b, connect } = await team(["bob"], {
      serve: { answerGraceMs: 500 },
    });
    const prompter = connect(a.h, "admin");
    await prompter.agent.request("initialize", INIT);
    const { sessionId } = await prompter.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await prompter.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const bobQ = held();
    const bob = connect(b.h, "bob", bobQ.on);
    await load(bob, sessionId);
    const go = join(tempDir(), "go");
    void prompter.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps({ waitFile: go }, ask, { text: "after" })),
      })
      .catch(() => undefined);
    await until(() => said(bob, sessionId).includes("waitFile"));
    // The runner's node keeps no client of the session: only bob, on B, may answer.
    prompter.close();
    await prompter.closed;
    writeFileSync(go, "");
    await until(() => bobQ.asked.length === 1);
    // Four times the grace: alone, node A would have refused by now.
    await new Promise((r) => setTimeout(r, 2000));
    bobQ.asked[0]!();
    await until(() => said(bob, sessionId).includes("permission "));
    expect(said(bob, sessionId)).toContain("permission granted (allow");
    expect(said(bob, sessionId)).toContain('"text":"after"');
    await until(async () => (await questionRows(url)) === 0);
  });
});

describe("the questions of a node that died", { timeout: 60_000 }, () => {
  it("are withdrawn on the other nodes once its heartbeat lapsed: B's client gets $/cancel_request", async () => {
    const { url, a, b, connect } = await team(["bob"]);
    const onA = connect(a.h, "admin", () => new Promise(() => undefined));
    await onA.agent.request("initialize", INIT);
    const { sessionId } = await onA.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await onA.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const asked: string[] = [];
    const withdrawn: string[] = [];
    const bob = connect(b.h, "bob", (_m, _p, signal) => {
      asked.push("bob");
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          withdrawn.push("bob");
          reject(new Error("cancelled"));
        }),
      );
    });
    await load(bob, sessionId);
    void onA.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps(ask, { text: "after" })),
      })
      .catch(() => undefined);
    await until(() => asked.length === 1);
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    await until(() => withdrawn.length === 1);
    await until(async () => (await questionRows(url)) === 0);
  });
});

describe("one hub without a cluster", { timeout: 60_000 }, () => {
  it("a second client answering after the first is told 'already answered by', as in a cluster", async () => {
    const home = tempDir();
    mockConfig(home);
    const h = await startHub(home);
    hubs.push(h);
    const c = (on?: OnRequest) => {
      const client = connectClient(h, "ws", on);
      clients.push(client);
      return client;
    };
    const prompter = c();
    await prompter.agent.request("initialize", INIT);
    const { sessionId } = await prompter.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    const go = join(tempDir(), "go");
    void prompter.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "start" }, { waitFile: go }, ask)),
      })
      .catch(() => undefined);
    await until(() => prompter.updates(sessionId).length > 0);
    const first = held();
    const second = held();
    const one = c(first.on);
    const two = c(second.on);
    for (const x of [one, two]) {
      await x.agent.request("initialize", INIT);
      await x.agent.request("session/load", {
        sessionId,
        cwd: home,
        mcpServers: [],
      });
    }
    prompter.close();
    await prompter.closed;
    // The prompter's departure is seen by the hub before the question is asked.
    await until(async () => {
      const res = await fetch(`${h.url}/metrics`, {
        headers: { Authorization: `Bearer ${h.token}` },
      });
      return /^acphub_connections 2$/m.test(await res.text());
    });
    writeFileSync(go, "");
    await until(() => first.asked.length === 1 && second.asked.length === 1);
    first.asked[0]!();
    await until(() => said(one, sessionId).includes("permission granted"));
    second.asked[0]!();
    await until(() => said(two, sessionId).includes("already answered by"));
    expect(said(two, sessionId)).toMatch(
      /already answered by \w+: your answer to \\"Edit it\\" was not used/,
    );
    expect(said(one, sessionId)).not.toContain("already answered");
  });
});
