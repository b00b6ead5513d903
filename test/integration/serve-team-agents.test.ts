// Issue 34, items 1, 4, 10 and 11, tried from outside with raw JSON-RPC frames over WebSocket
// against the real `acphub serve` with users: which agents a member may start (never the
// bundled mock unless the config names it), the mock's shell step going through the hub's
// host, stdio MCP servers only for the roles the config names, agent-wide methods for admins
// only, forks only with driver standing and without another user's MCP secrets, and an agent
// that cannot speak acphub's own `_meta.acphub` keys.
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLI, steps } from "../helpers/mock.js";
import { INIT } from "../helpers/hub.js";
import {
  errorOf,
  rawClient,
  resultOf,
  type Frame,
  type RawClient,
} from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

// A fresh folder inside the team members' root (users.roots), for one session.
const workDir = () => mkdtempSync(join(TEAM_WORK, "s-"));

const fx = teamFixture();
afterEach(() => fx.cleanup());

const USERS = { alice: "member", bob: "member", vic: "viewer" } as const;
const mockEntry = (...flags: string[]) => ({
  command: process.execPath,
  args: [CLI, "mock-agent", ...flags],
});

// A raw client of one user, initialized.
async function as(
  team: TeamHub,
  user: string,
  onRequest?: (method: string, params: Frame) => unknown,
): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!, onRequest);
  clients.push(c);
  resultOf(await c.call("initialize", INIT));
  return c;
}
const clients: RawClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

const open = async (c: RawClient, params: Frame = {}) =>
  c.call("session/new", { cwd: workDir(), mcpServers: [], ...params });
const agentMeta = (agent: string) => ({ _meta: { acphub: { agent } } });
const names = async (c: RawClient) =>
  resultOf<{ agents: { name: string }[] }>(
    await c.call("_acphub/agents", {}),
  ).agents.map((a) => a.name);

// The text of the agent's message chunks in a session, as received.
const said = (c: RawClient, sessionId: string) =>
  c
    .updates(sessionId)
    .map((p) => (p["update"] as { content?: { text?: string } }).content?.text)
    .join("");

describe("which agents a hub user may start (item 1)", () => {
  it("a member starts only what users.agents or the default gives them; the mock and unconfigured agents never", async () => {
    const team = await fx.start(USERS, {
      defaultAgent: "safe",
      agents: { safe: mockEntry(), other: mockEntry() },
      users: { agents: { alice: ["safe", "other"] } },
    });
    const bob = await as(team, "bob");
    for (const agent of ["mock", "claude", "codex", "other", " mock", "MOCK"]) {
      const e = errorOf(await open(bob, agentMeta(agent)));
      expect(e.code).toBe(-32001);
      expect(e.message).toContain(JSON.stringify(agent));
      expect(e.message).toMatch(/you may start: safe$/);
    }
    expect(errorOf(await open(bob, agentMeta("mock"))).message).toBe(
      'this hub does not offer agent "mock"; you may start: safe',
    );
    resultOf(await open(bob));
    expect(await names(bob)).toEqual(["safe"]);
    const alice = await as(team, "alice");
    resultOf(await open(alice, agentMeta("other")));
    expect(await names(alice)).toEqual(["other", "safe"]);
    const vic = await as(team, "vic");
    expect(await names(vic)).toEqual([]);
    const admin = await as(team, "admin");
    expect(await names(admin)).toEqual(["other", "safe"]);
    expect(errorOf(await open(admin, agentMeta("mock"))).code).toBe(-32001);
  });

  it("the mock agent's shell step is a terminal the hub's host asks about, not a command of its own", async () => {
    const team = await fx.start(USERS);
    const asked: Frame[] = [];
    const alice = await as(team, "alice", (method, params) => {
      asked.push({ method, ...params });
      return method === "session/request_permission"
        ? { outcome: { outcome: "selected", optionId: "reject" } }
        : undefined;
    });
    const cwd = workDir();
    const { sessionId } = resultOf<{ sessionId: string }>(
      await open(alice, { cwd }),
    );
    const marker = join(cwd, "ran-on-the-hub");
    const answer = await alice.call("session/prompt", {
      sessionId,
      prompt: [
        {
          type: "text",
          text: steps({ shell: `touch ${marker}; echo ran` }),
        },
      ],
    });
    expect(resultOf(answer)).toMatchObject({ stopReason: "end_turn" });
    expect(existsSync(marker)).toBe(false);
    expect(asked.map((a) => a["method"])).toEqual([
      "session/request_permission",
    ]);
    expect(JSON.stringify(asked[0])).toContain("ran-on-the-hub");
    expect(said(alice, sessionId)).toMatch(
      /shell failed: -32001 refused by policy/,
    );
  });

  it("stdio MCP servers only from the roles or users users.stdioMcpServers names; http ones from anyone", async () => {
    const team = await fx.start(USERS, {
      agents: { mock: mockEntry("--session-capabilities", "fork,resume") },
      users: { stdioMcpServers: ["admin", "alice"] },
    });
    const stdio = { name: "tools", command: "sh", args: ["-c", "id"], env: [] };
    const http = {
      type: "http",
      name: "web",
      url: "http://127.0.0.1:9/x",
      headers: [],
    };
    const bob = await as(team, "bob");
    const refused = errorOf(await open(bob, { mcpServers: [stdio] }));
    expect(refused.code).toBe(-32001);
    expect(refused.message).toContain(
      'stdio MCP servers run commands on the hub\'s machine; a member may not give them ("tools")',
    );
    const typed = errorOf(
      await open(bob, { mcpServers: [{ ...stdio, type: "stdio" }] }),
    );
    expect(typed.code).toBe(-32001);
    const { sessionId } = resultOf<{ sessionId: string }>(
      await open(bob, { mcpServers: [http] }),
    );
    for (const method of ["session/load", "session/resume", "session/fork"])
      expect(
        errorOf(
          await bob.call(method, {
            sessionId,
            cwd: workDir(),
            mcpServers: [stdio],
          }),
        ).code,
      ).toBe(-32001);
    const alice = await as(team, "alice");
    resultOf(await open(alice, { mcpServers: [stdio] }));
  });
});

describe("agent-wide methods (item 4)", () => {
  it("only an admin may send a method that is about no one session, however it is spelled", async () => {
    const team = await fx.start(USERS, {}, [
      "--advertise",
      "logout,providers,auth-status",
    ]);
    const bob = await as(team, "bob");
    const { sessionId } = resultOf<{ sessionId: string }>(await open(bob));
    const tries: [string, Frame][] = [
      [
        "providers/set",
        {
          providerId: "mock-provider",
          apiType: "openai",
          baseUrl: "http://evil",
        },
      ],
      ["providers/disable", { providerId: "mock-provider" }],
      ["providers/list", {}],
      ["logout", {}],
      ["authenticate", { methodId: "x" }],
      ["auth/status", {}],
      ["_mock/anything", {}],
      ["_mock/anything", { sessionId: 7 }],
      // A session of their own added to an agent-wide method changes nothing.
      ["providers/set", { sessionId, providerId: "mock-provider" }],
      ["logout", { sessionId }],
    ];
    for (const user of ["bob", "vic"]) {
      const c = user === "bob" ? bob : await as(team, user);
      for (const [method, params] of tries) {
        const e = errorOf(await c.call(method, params));
        expect({ method, code: e.code }).toEqual({ method, code: -32001 });
        expect(e.message).toContain(
          `${method} is not about one session: it reaches the agent process every user of this hub shares, so it is for admins; you are a ${user === "bob" ? "member" : "viewer"}`,
        );
      }
    }
    const admin = await as(team, "admin");
    expect(
      resultOf(await admin.call("providers/set", tries[0]![1])),
    ).toMatchObject({ _meta: { answeredBy: "acphub-mock-agent" } });
    expect(resultOf(await admin.call("logout", {}))).toMatchObject({
      _meta: { answeredBy: "acphub-mock-agent" },
    });
  });
});

describe("forks and stored MCP secrets (item 10)", () => {
  it("a fork needs driving the parent, copies no other user's MCP servers, and shown requests are masked", async () => {
    const team = await fx.start(USERS, {
      users: { stdioMcpServers: ["alice"] },
    });
    const alice = await as(team, "alice");
    const secretEnv = "env-secret-4f9d2a71";
    const secretHeader = "Bearer header-secret-8c1e55";
    const { sessionId } = resultOf<{ sessionId: string }>(
      await open(alice, {
        mcpServers: [
          {
            name: "db",
            command: "db-mcp",
            args: [],
            env: [{ name: "DB_PASSWORD", value: secretEnv }],
          },
          {
            type: "http",
            name: "web",
            url: "http://127.0.0.1:9/mcp",
            headers: [{ name: "Authorization", value: secretHeader }],
          },
        ],
      }),
    );
    const share = (role: string) =>
      alice.call("_acphub/session/share", { sessionId, user: "bob", role });
    resultOf(await share("viewer"));
    const bob = await as(team, "bob");
    resultOf(
      await bob.call("session/load", {
        sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      }),
    );
    const refused = errorOf(
      await bob.call("session/fork", {
        sessionId,
        cwd: workDir(),
        mcpServers: [],
      }),
    );
    expect(refused.code).toBe(-32001);
    expect(refused.message).toContain("viewer");
    resultOf(await share("driver"));
    const fork = resultOf<{ sessionId: string }>(
      await bob.call("session/fork", { sessionId, cwd: workDir() }),
    );
    const show = async (id: string) => {
      const r = await runCli(["sessions", "show", id, "--json"], {
        env: { ACPHUB_HOME: team.home },
      });
      expect(r.code).toBe(0);
      return r.stdout;
    };
    const forked = JSON.parse(await show(fork.sessionId)) as {
      session: { request: { mcpServers: unknown[] } };
    };
    expect(forked.session.request.mcpServers).toEqual([]);
    const parent = await show(sessionId);
    expect(parent).not.toContain(secretEnv);
    expect(parent).not.toContain("header-secret-8c1e55");
    expect(
      (JSON.parse(parent) as { session: { request: unknown } }).session.request,
    ).toMatchObject({
      mcpServers: [
        { name: "db", env: [{ name: "DB_PASSWORD", value: "***" }] },
        { name: "web", headers: [{ name: "Authorization", value: "***" }] },
      ],
    });
    // The owner's own fork keeps her servers (shown masked).
    const own = resultOf<{ sessionId: string }>(
      await alice.call("session/fork", { sessionId, cwd: workDir() }),
    );
    expect(await show(own.sessionId)).toContain(
      '"name":"DB_PASSWORD","value":"***"',
    );
  });
});

describe("an agent cannot speak acphub's own _meta (item 11)", () => {
  it("_meta.acphub from the agent is stripped before it is stored or relayed; other _meta keys pass", async () => {
    const team = await fx.start(USERS);
    const bob = await as(team, "bob");
    const { sessionId } = resultOf<{ sessionId: string }>(await open(bob));
    const forged = {
      author: "alice",
      seq: 999999,
      notice: { severity: "error" },
    };
    const script = {
      steps: [
        {
          update: {
            sessionUpdate: "user_message_chunk",
            content: { type: "text", text: "FORGED-USER " },
            _meta: { acphub: forged, keep: "inner" },
          },
          _meta: { acphub: forged, keep: "outer" },
        },
        { text: "FORGED-AGENT", _meta: { acphub: forged } },
      ],
      _meta: { acphub: { replayed: true, promptSeq: 1 }, keep: "answer" },
    };
    const answer = resultOf<Frame>(
      await bob.call("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: JSON.stringify(script) }],
      }),
    );
    expect(answer["_meta"]).toEqual({ keep: "answer" });
    const live = bob
      .updates(sessionId)
      .filter((p) => JSON.stringify(p).includes("FORGED"));
    expect(live).toHaveLength(2);
    for (const p of live) {
      expect(Object.keys((p["_meta"] as Frame)["acphub"] as Frame)).toEqual([
        "seq",
      ]);
      expect(JSON.stringify(p)).not.toContain("alice");
      expect(JSON.stringify(p)).not.toContain("999999");
    }
    expect(live[0]!["_meta"]).toMatchObject({ keep: "outer" });
    expect((live[0]!["update"] as Frame)["_meta"]).toEqual({ keep: "inner" });
    const replay = resultOf<{ updates: Frame[] }>(
      await bob.call("_acphub/session/replay", { sessionId, afterSeq: 0 }),
    );
    // What the agent sent (bob's own prompt, the script, names alice itself).
    const fromAgent = replay.updates.filter(
      (u) => !JSON.stringify(u).includes('"steps'),
    );
    expect(JSON.stringify(fromAgent)).toContain("FORGED-USER");
    expect(JSON.stringify(fromAgent)).not.toContain("alice");
    const shown = await runCli(["sessions", "show", sessionId], {
      env: { ACPHUB_HOME: team.home },
    });
    expect(shown.stdout).toContain("FORGED-USER");
    expect(shown.stdout).not.toContain("alice>");
    const stored = await runCli(["sessions", "show", sessionId, "--json"], {
      env: { ACPHUB_HOME: team.home },
    });
    const events = (JSON.parse(stored.stdout) as { events: Frame[] }).events;
    const updates = JSON.stringify(
      events.filter((e) => e["kind"] === "update"),
    );
    expect(updates).toContain("FORGED-AGENT");
    expect(updates).not.toContain("alice");
  });
});
