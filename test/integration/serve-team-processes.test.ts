// Each hub user's agents are their own processes (issue 36): on a hub with users a session runs
// in its owner's agent process (two members: two processes; one member's two sessions: one; a
// driver's prompt in a shared session: the owner's), a member's agent and terminals see HOME in
// the hub's state folder and none of the operator's variables (not even those env.allow and
// passEnv name for admins), `users.limits.agentProcesses` bounds a member's processes (an idle
// one is closed first, else the open is refused, creating nothing), a removed user's processes
// end while their sessions stay, and a hub with only the serve token keeps one process per agent.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  allowOnce,
  connectClient,
  INIT,
  startHub,
  text,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { addUsers, TEAM_WORK } from "../helpers/team.js";
import { CLI, groupGone, steps, tempDir, waitFor } from "../helpers/mock.js";
import { runCli } from "../helpers/cli.js";

/** The operator's variables the hub is started with: none may reach a member's agent. */
const SENTINELS: Record<string, string> = {
  ACPHUB_SENTINEL_SECRET: "sentinel-acphub-7f3a9c",
  AWS_SECRET_ACCESS_KEY: "sentinel-aws-51be20",
  OTEL_EXPORTER_OTLP_HEADERS: "authorization=sentinel-otel-93d1",
  DATABASE_URL: "postgres://op:sentinel-db-11aa@db.internal/acphub",
};

const hubs: RunningHub[] = [];
const clients: HubTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

// A hub whose config offers two mock agents; `users` made in its ledger first (none: only the
// serve token). The operator's env.allow and the agent's passEnv name the sentinels.
async function startTeam(
  users: Record<string, "admin" | "member">,
  extra: Record<string, unknown> = {},
  prepare?: (home: string) => Promise<void>,
) {
  const home = tempDir();
  const mock = {
    command: process.execPath,
    args: [CLI, "mock-agent"],
    ...((extra["mock"] as object | undefined) ?? {}),
    env: { TEAM_GREETING: "hello from the config" },
    passEnv: ["OTEL_EXPORTER_OTLP_HEADERS"],
  };
  const config = {
    defaultAgent: "mock",
    agents: { mock, mock2: mock },
    env: { allow: ["ACPHUB_SENTINEL_SECRET", "AWS_SECRET_ACCESS_KEY"] },
    permissions: { mode: "ask" },
    users: {
      roots: { "*": [TEAM_WORK] },
      agents: { member: ["mock", "mock2"] },
      ...((extra["users"] as object | undefined) ?? {}),
    },
    ...(extra["serve"] ? { serve: extra["serve"] } : {}),
  };
  writeFileSync(join(home, "config.json"), JSON.stringify(config));
  const tokens = await addUsers(home, users);
  await prepare?.(home);
  const operatorHome = tempDir("acphub-operator-home-");
  // Its own working folder: a sandboxed agent's mount points are made there, not in the repo.
  const h = await startHub(
    home,
    [],
    { ...SENTINELS, HOME: operatorHome },
    tempDir("acphub-hub-cwd-"),
  );
  hubs.push(h);
  const connect = async (user: string) => {
    const token = user === "admin" ? h.token : tokens[user]!;
    const c = connectClient({ acpUrl: h.acpUrl, token }, "ws", allowOnce);
    clients.push(c);
    await c.agent.request("initialize", INIT);
    return c;
  };
  return { h, home, operatorHome, connect };
}

type Answer = { sessionId: string; _meta?: { acphub?: { runsAs?: string } } };

const open = (c: HubTestClient, agent = "mock") =>
  c.agent.request<Answer>("session/new", {
    cwd: TEAM_WORK,
    mcpServers: [],
    _meta: { acphub: { agent } },
  });

// Runs mock steps in a session; the agent's text of that turn.
async function turn(
  c: HubTestClient,
  sessionId: string,
  ...list: Record<string, unknown>[]
): Promise<string> {
  const before = c.updates(sessionId).length;
  await c.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps(...list)),
  });
  return c
    .updates(sessionId)
    .slice(before)
    .map(
      (p) =>
        p["update"] as { sessionUpdate: string; content?: { text?: string } },
    )
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content?.text ?? "")
    .join("");
}

// The pid of the agent process that runs a session's turns.
async function pidOf(c: HubTestClient, sessionId: string): Promise<number> {
  const said = await turn(c, sessionId, { pid: true });
  const pid = Number(/pid: (\d+)/.exec(said)?.[1]);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

// The variables the agent of a session sees: every name, and the values of a few.
async function envOf(c: HubTestClient, sessionId: string) {
  const said = await turn(c, sessionId, {
    env: ["HOME", "TEAM_GREETING", ...Object.keys(SENTINELS)],
  });
  const names = /env: (.*)\n/.exec(said)![1]!.split(",");
  const values = Object.fromEntries(
    [...said.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  return { names, values, said };
}

// The terminal id of the last tool call with terminal content the client was sent.
function terminalIdOf(c: HubTestClient, sessionId: string): string | undefined {
  let found: string | undefined;
  for (const u of c.updates(sessionId)) {
    const content = (u["update"] as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const x of content as { type: string; terminalId?: string }[])
      if (x.type === "terminal" && x.terminalId) found = x.terminalId;
  }
  return found;
}

describe("acphub serve: agent processes per user", { timeout: 120_000 }, () => {
  it("runs each member's sessions in their own process, a shared session in its owner's", async () => {
    const t = await startTeam({
      alice: "member",
      bob: "member",
      carol: "admin",
    });
    const alice = await t.connect("alice");
    const bob = await t.connect("bob");
    const carol = await t.connect("carol");
    const a1 = await open(alice);
    const a2 = await open(alice);
    const b1 = await open(bob);
    const c1 = await open(carol);
    // The answers say whose agent runs the session.
    expect(a1._meta?.acphub?.runsAs).toBe("alice");
    expect(b1._meta?.acphub?.runsAs).toBe("bob");
    expect(c1._meta?.acphub?.runsAs).toBe("carol");
    const pa1 = await pidOf(alice, a1.sessionId);
    expect(await pidOf(alice, a2.sessionId)).toBe(pa1);
    const pb1 = await pidOf(bob, b1.sessionId);
    const pc1 = await pidOf(carol, c1.sessionId);
    expect(new Set([pa1, pb1, pc1]).size).toBe(3);
    // alice shares a1 with bob to drive: his prompt runs in alice's process.
    await alice.agent.request("_acphub/session/share", {
      sessionId: a1.sessionId,
      user: "bob",
      role: "driver",
    });
    const loaded = await bob.agent.request<Answer>("session/load", {
      sessionId: a1.sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(loaded._meta?.acphub?.runsAs).toBe("alice");
    expect(await pidOf(bob, a1.sessionId)).toBe(pa1);
    // bob's fork of it is his own session: it runs in his process.
    const fork = await bob.agent.request<Answer>("session/fork", {
      sessionId: a1.sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(fork._meta?.acphub?.runsAs).toBe("bob");
    expect(await pidOf(bob, fork.sessionId)).toBe(pb1);
  });

  it("keeps the operator's variables out of members' agents and terminals; HOME is the user's", async () => {
    const t = await startTeam({
      alice: "member",
      bob: "member",
      carol: "admin",
    });
    const alice = await t.connect("alice");
    const bob = await t.connect("bob");
    const carol = await t.connect("carol");
    for (const [c, name] of [
      [alice, "alice"],
      [bob, "bob"],
    ] as const) {
      const { sessionId } = await open(c);
      const env = await envOf(c, sessionId);
      for (const sentinel of Object.keys(SENTINELS))
        expect(env.names).not.toContain(sentinel);
      for (const value of Object.values(SENTINELS))
        expect(env.said).not.toContain(value);
      expect(env.names.filter((n) => n.startsWith("ACPHUB_"))).toEqual([]);
      expect(env.values["HOME"]).toBe(join(t.home, "homes", name));
      expect(env.values["TEAM_GREETING"]).toBe("hello from the config");
      // The host's terminal for that session: the user's HOME, none of the operator's variables.
      const shell = await turn(c, sessionId, {
        shell:
          'echo "home=$HOME"; echo "vars=$(env | cut -d= -f1 | tr "\\n" " ")"',
      });
      expect(shell).toContain(`home=${join(t.home, "homes", name)}`);
      expect(shell).toContain("vars=");
      for (const sentinel of Object.keys(SENTINELS))
        expect(shell).not.toContain(sentinel);
      // Its output is read from the host of the member's own process.
      await turn(c, sessionId, {
        terminal: { command: "sh", args: ["-c", 'echo "home=$HOME"'] },
      });
      const terminalId = terminalIdOf(c, sessionId);
      const read = await c.agent.request<{ output: string }>(
        "_acphub/terminal/output",
        { sessionId, terminalId },
      );
      expect(read.output).toBe(`home=${join(t.home, "homes", name)}\n`);
    }
    // An admin's agent keeps the operator's environment, with what env.allow and passEnv name.
    const { sessionId } = await open(carol);
    const env = await envOf(carol, sessionId);
    expect(env.values["HOME"]).toBe(t.operatorHome);
    // (their values are masked in what the hub stores and relays, as every secret is).
    expect(env.names).toContain("ACPHUB_SENTINEL_SECRET");
    expect(env.names).toContain("OTEL_EXPORTER_OTLP_HEADERS");
  });

  it("bounds a member's processes by users.limits.agentProcesses, closing an idle one first", async () => {
    const t = await startTeam(
      { alice: "member", bob: "member", carol: "admin" },
      { users: { limits: { agentProcesses: 1 } } },
      async (home) => {
        const set = await runCli(
          ["users", "limits", "bob", "--agent-processes", "2", "--json"],
          { home },
        );
        expect([set.code, set.stderr]).toEqual([0, ""]);
        expect(JSON.parse(set.stdout)).toEqual({
          name: "bob",
          limits: { agentProcesses: 2 },
        });
      },
    );
    const alice = await t.connect("alice");
    const a1 = await open(alice, "mock");
    const pa1 = await pidOf(alice, a1.sessionId);
    const listed = async () =>
      (await alice.agent.request<{ sessions: unknown[] }>("session/list", {}))
        .sessions.length;
    // Her one process is in use (a1 is attached): another agent's process is refused.
    await expect(open(alice, "mock2")).rejects.toMatchObject({
      message: expect.stringContaining(
        "quota users.limits.agentProcesses (1 agent processes at once for alice, none of them idle) reached",
      ),
    });
    expect(await listed()).toBe(1);
    // Once a1 is closed her process is idle: it is closed to make room.
    await alice.agent.request("session/close", { sessionId: a1.sessionId });
    const a2 = await open(alice, "mock2");
    expect(await waitFor(() => groupGone(pa1))).toBe(true);
    expect(await pidOf(alice, a2.sessionId)).not.toBe(pa1);
    expect(await listed()).toBe(2);
    // bob's own limit (2) lets him run both agents at once; an admin is not limited.
    const bob = await t.connect("bob");
    const b1 = await open(bob, "mock");
    const b2 = await open(bob, "mock2");
    expect(await pidOf(bob, b1.sessionId)).not.toBe(
      await pidOf(bob, b2.sessionId),
    );
    const carol = await t.connect("carol");
    await open(carol, "mock");
    await open(carol, "mock2");
  });

  it("closes a process none of whose sessions is in use for serve.idleAgentMs", async () => {
    const t = await startTeam(
      { alice: "member", bob: "member" },
      { serve: { idleAgentMs: 300 } },
    );
    const alice = await t.connect("alice");
    const bob = await t.connect("bob");
    const a1 = await open(alice);
    const b1 = await open(bob);
    const pa = await pidOf(alice, a1.sessionId);
    const pb = await pidOf(bob, b1.sessionId);
    await alice.agent.request("session/close", { sessionId: a1.sessionId });
    expect(await waitFor(() => groupGone(pa))).toBe(true);
    // bob's session stays attached: his process stays (the same pid answers again).
    expect(await pidOf(bob, b1.sessionId)).toBe(pb);
    // alice's session is restored in a new process of hers when she opens it again.
    await alice.agent.request("session/load", {
      sessionId: a1.sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    const again = await pidOf(alice, a1.sessionId);
    expect(again).not.toBe(pa);
    expect(groupGone(again)).toBe(false);
  });

  it("removes a sandboxed agent's temp folder once the hub closes its process, not at the hub's exit", async () => {
    const t = await startTeam(
      { alice: "member" },
      {
        mock: { args: [CLI, "mock-agent", "--own-shell"], sandbox: true },
        serve: { idleAgentMs: 300 },
      },
    );
    const alice = await t.connect("alice");
    const a1 = await open(alice);
    const said = await turn(alice, a1.sessionId, {
      shell: 'echo "tmp=$TMPDIR"',
    });
    const tmp = /tmp=([^\s\\"]+)/.exec(said)?.[1] ?? "";
    expect(tmp).toContain("acphub-agent-");
    expect(existsSync(tmp)).toBe(true);
    await alice.agent.request("session/close", { sessionId: a1.sessionId });
    expect(await waitFor(() => !existsSync(tmp))).toBe(true);
  });

  it("lets a sandboxed member's agent write its own HOME, not read another's or the ledger", async () => {
    const t = await startTeam(
      { alice: "member", bob: "member" },
      {
        mock: {
          args: [CLI, "mock-agent", "--own-shell"],
          sandbox: { stateDirs: ["~/.agent-state"] },
        },
      },
    );
    const bob = await t.connect("bob");
    const b1 = await open(bob);
    expect(
      await turn(bob, b1.sessionId, {
        shell:
          'echo bob-login-7c1 > "$HOME/.agent-state/login" && echo bob-wrote',
      }),
    ).toContain("bob-wrote");
    const alice = await t.connect("alice");
    const { sessionId } = await open(alice);
    const bobHome = join(t.home, "homes", "bob");
    const said = await turn(alice, sessionId, {
      shell: [
        'touch "$HOME/.agent-state/login" && echo own-home-written',
        `cat "${bobHome}/.agent-state/login" 2>/dev/null || echo bob-hidden`,
        `head -c 16 "${join(t.home, "ledger.db")}" >/dev/null 2>&1 && echo read-ledger || echo ledger-hidden`,
      ].join("; "),
    });
    expect(said).toContain("own-home-written");
    expect(said).toContain("bob-hidden");
    expect(said).not.toContain("bob-login-7c1");
    expect(said).toContain("ledger-hidden");
  });

  it("ends a removed user's agent processes; their sessions stay in the ledger", async () => {
    const t = await startTeam({ alice: "member", bob: "member" });
    const alice = await t.connect("alice");
    const bob = await t.connect("bob");
    const a1 = await open(alice);
    const b1 = await open(bob);
    const pa = await pidOf(alice, a1.sessionId);
    const pb = await pidOf(bob, b1.sessionId);
    const removed = await runCli(["users", "remove", "alice"], {
      home: t.home,
    });
    expect(removed.code).toBe(0);
    expect(await waitFor(() => groupGone(pa))).toBe(true);
    expect(groupGone(pb)).toBe(false);
    expect(await pidOf(bob, b1.sessionId)).toBe(pb);
    const admin = await t.connect("admin");
    const { sessions } = await admin.agent.request<{
      sessions: { sessionId: string }[];
    }>("session/list", {});
    expect(sessions.map((s) => s.sessionId)).toContain(a1.sessionId);
  });

  it("keeps one process per agent on a hub with only the serve token", async () => {
    const t = await startTeam({});
    const c = await t.connect("admin");
    const s1 = await open(c);
    const s2 = await open(c);
    expect(s1._meta?.acphub?.runsAs).toBeUndefined();
    expect(await pidOf(c, s1.sessionId)).toBe(await pidOf(c, s2.sessionId));
    // The operator's own agent: env.allow's variables as before.
    const env = await envOf(c, s1.sessionId);
    expect(env.values["HOME"]).toBe(t.operatorHome);
    expect(env.names).toContain("ACPHUB_SENTINEL_SECRET");
  });
});
