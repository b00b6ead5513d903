// The live-sessions quota (issue 22): a user may hold `users.limits.liveSessions` sessions open
// at once on a hub (new, load, resume, fork); one more is refused naming the limit and when it
// frees up, creating nothing, and admitted again after session/close. A user's own limit in the
// users table (`acphub users limits`) overrides the config's.
import { afterEach, describe, expect, it } from "vitest";
import { INIT, type HubTestClient } from "../helpers/hub.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";
import { runCli } from "../helpers/cli.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const open = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessionId: string }>("session/new", {
      cwd: TEAM_WORK,
      mcpServers: [],
    })
  ).sessionId;

const listIds = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      {},
    )
  ).sessions.map((s) => s.sessionId);

describe("acphub serve: the live-sessions quota", { timeout: 120_000 }, () => {
  it("refuses one session too many, creating nothing, and admits it after session/close", async () => {
    const team = await fx.start(
      { alice: "member", bob: "member" },
      { users: { limits: { liveSessions: 1 } } },
      [],
      async (home) => {
        const set = await runCli(
          ["users", "limits", "bob", "--live-sessions", "2", "--json"],
          { home },
        );
        expect([set.code, set.stderr]).toEqual([0, ""]);
        expect(JSON.parse(set.stdout)).toEqual({
          name: "bob",
          limits: { liveSessions: 2 },
        });
        const bad = await runCli(
          ["users", "limits", "bob", "--live-sessions", "two"],
          { home },
        );
        expect([bad.code, bad.stderr]).toEqual([
          2,
          'acphub: --live-sessions "two": give a whole number above 0\n',
        ]);
      },
    );
    const alice = fx.connect(team, "alice", "ws");
    await alice.agent.request("initialize", INIT);
    const first = await open(alice);
    await expect(open(alice)).rejects.toMatchObject({
      message: expect.stringContaining(
        "quota users.limits.liveSessions (1 open at once) reached: frees up when you close one of your sessions (session/close) or disconnect",
      ),
    });
    // Nothing was created, and the session she holds may be loaded again.
    expect(await listIds(alice)).toEqual([first]);
    await alice.agent.request("session/load", {
      sessionId: first,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    // Another connection of hers counts too.
    const again = fx.connect(team, "alice", "http");
    await again.agent.request("initialize", INIT);
    await expect(open(again)).rejects.toMatchObject({
      message: expect.stringContaining("liveSessions"),
    });
    await alice.agent.request("session/close", { sessionId: first });
    const second = await open(again);
    expect((await listIds(alice)).sort()).toEqual([first, second].sort());
    // bob's own limit (2, in the ledger) wins over the config's 1.
    const bob = fx.connect(team, "bob", "ws");
    await bob.agent.request("initialize", INIT);
    await open(bob);
    await open(bob);
    await expect(open(bob)).rejects.toMatchObject({
      message: expect.stringContaining("liveSessions (2 open at once)"),
    });
    // The serve token's holder (admin) is not limited.
    const admin = fx.connect(team, "admin", "ws");
    await admin.agent.request("initialize", INIT);
    await open(admin);
    await open(admin);
  });
});
