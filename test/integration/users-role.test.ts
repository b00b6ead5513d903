// Issue 38: `acphub users role NAME ROLE` and `_acphub/users/role` change a user's role in place:
// the token, the shares and the limits stay (removing and re-adding lost them), a running hub
// applies it to open connections at their next request, every change is audited, and unknown
// users and roles and the last admin without a serve token are refused.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { rawClient, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

const INIT = { protocolVersion: 1, clientCapabilities: {} };

async function as(team: TeamHub, user: string): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  await c.call("initialize", INIT);
  return c;
}

const roleOf = async (c: RawClient) =>
  ((await c.call("_acphub/whoami", {}))["result"] as { role: string }).role;

const prompt = (c: RawClient, sessionId: string, text: string) =>
  c.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: steps({ text }) }],
  });

describe("acphub users role", { timeout: 90_000 }, () => {
  it("a member made viewer on a running hub can no longer prompt; token, shares and limits stay", async () => {
    const team = await fx.start({ alice: "member", bob: "member" });
    const alice = await as(team, "alice");
    const made = await alice.call("session/new", {
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    const { sessionId } = made["result"] as { sessionId: string };
    await alice.call("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const limits = await runCli(
      ["users", "limits", "bob", "--live-sessions", "3"],
      { home: team.home },
    );
    expect(limits.code).toBe(0);
    // bob drives alice's session over a connection opened before the change.
    const bob = await as(team, "bob");
    await bob.call("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect((await prompt(bob, sessionId, "one"))["result"]).toMatchObject({
      stopReason: "end_turn",
    });

    const cli = await runCli(["users", "role", "bob", "viewer", "--json"], {
      home: team.home,
    });
    expect([cli.code, cli.stderr]).toEqual([0, ""]);
    expect(JSON.parse(cli.stdout)).toEqual({
      name: "bob",
      role: "viewer",
      previous: "member",
    });
    // The same connection sees the new role (the hub polls the users every second).
    await until(async () => (await roleOf(bob)) === "viewer");
    const refused = await prompt(bob, sessionId, "two");
    expect(refused["error"]).toMatchObject({ code: -32001 });
    const fresh = await bob.call("session/new", {
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(fresh["error"]).toMatchObject({
      message: expect.stringContaining("a viewer may list, load and watch"),
    });
    // Kept: the token (a new connection logs in), the share, the limits.
    expect(await roleOf(await as(team, "bob"))).toBe("viewer");
    const grants = (await alice.call("_acphub/session/grants", { sessionId }))[
      "result"
    ] as { grants: { user: string; role: string }[] };
    expect(grants.grants).toContainEqual({
      sessionId,
      user: "bob",
      role: "driver",
    });
    const kept = await runCli(["users", "limits", "bob", "--json"], {
      home: team.home,
    });
    expect(JSON.parse(kept.stdout)).toEqual({
      name: "bob",
      limits: { liveSessions: 3 },
    });

    // Back to member: the share drives again, on the same connection.
    await runCli(["users", "role", "bob", "member"], { home: team.home });
    await until(async () => (await roleOf(bob)) === "member");
    expect((await prompt(bob, sessionId, "three"))["result"]).toMatchObject({
      stopReason: "end_turn",
    });
    const audit = JSON.parse(
      (await runCli(["audit", "--json"], { home: team.home })).stdout,
    ) as { user: string; action: string; detail: Record<string, unknown> }[];
    expect(
      audit.filter((e) => e.action === "user.role").map((e) => e.detail),
    ).toEqual([
      { via: "cli", name: "bob", role: "viewer", previous: "member" },
      { via: "cli", name: "bob", role: "member", previous: "viewer" },
    ]);
  });

  it("_acphub/users/role: an admin's change applies at once; a member is refused", async () => {
    const team = await fx.start({ root: "admin", bob: "member" });
    const bob = await as(team, "bob");
    const denied = await bob.call("_acphub/users/role", {
      name: "bob",
      role: "admin",
    });
    expect(denied["error"]).toMatchObject({
      code: -32001,
      message: "only an admin may call _acphub/users/role",
    });
    expect(await roleOf(bob)).toBe("member");
    const root = await as(team, "root");
    for (const [params, message] of [
      [{ name: "bob" }, "_acphub/users/role takes {name, role}"],
      [{ name: "bob", role: "boss" }, 'invalid role "boss"'],
      [{ name: "zed", role: "viewer" }, 'no user named "zed"'],
    ] as const) {
      const bad = await root.call("_acphub/users/role", params);
      expect(bad["error"]).toMatchObject({
        code: -32602,
        message: expect.stringContaining(message),
      });
    }
    const done = await root.call("_acphub/users/role", {
      name: "bob",
      role: "viewer",
    });
    expect(done["result"]).toEqual({
      name: "bob",
      role: "viewer",
      previous: "member",
    });
    // At once on this node: the directory is reloaded before the answer.
    expect(await roleOf(bob)).toBe("viewer");
    // Over the hub (the admin page), the last admin user may not step down: no user could
    // manage the hub there any more (issue 38). Nothing changes.
    const down = await root.call("_acphub/users/role", {
      name: "root",
      role: "member",
    });
    expect(down["error"]).toMatchObject({
      message:
        "root is the last admin: making them member would leave no user who can manage the hub; make another user admin first",
    });
    expect(await roleOf(root)).toBe("admin");
    const audit = JSON.parse(
      (await runCli(["audit", "--json"], { home: team.home })).stdout,
    ) as { user: string; action: string; detail: Record<string, unknown> }[];
    expect(
      audit
        .filter((e) => e.action === "user.role")
        .map((e) => [e.user, e.detail]),
    ).toEqual([
      ["root", { via: "hub", name: "bob", role: "viewer", previous: "member" }],
    ]);
  });

  it("refuses an unknown user, an unknown role and the last admin without a serve token", async () => {
    const home = tempDir();
    await runCli(["users", "add", "root", "--role", "admin"], { home });
    const refusals: [string[], string][] = [
      [["users", "role", "zed", "viewer"], 'no user named "zed"'],
      [
        ["users", "role", "root", "boss"],
        'invalid role "boss": one of admin, member, viewer',
      ],
      [
        ["users", "role", "root", "member"],
        "root is the last admin and there is no serve token (no serve-token file, no ACPHUB_TOKEN): make another user admin first",
      ],
    ];
    for (const [args, message] of refusals) {
      const r = await runCli(args, { home });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        "",
        `acphub: ${message}\n`,
      ]);
    }
    const list = await runCli(["users", "list", "--json"], { home });
    expect(JSON.parse(list.stdout)).toMatchObject([
      { name: "root", role: "admin" },
    ]);
    // With another admin (or a serve token) the first may step down.
    await runCli(["users", "add", "ann", "--role", "admin"], { home });
    const ok = await runCli(["users", "role", "root", "member"], { home });
    expect([ok.code, ok.stdout]).toEqual([
      0,
      "root: admin → member (a running hub applies it within a second)\n",
    ]);
    const token = await runCli(["users", "role", "ann", "viewer"], {
      home,
      env: { ACPHUB_TOKEN: "x".repeat(32) },
    });
    expect(token.code).toBe(0);
  });
});
