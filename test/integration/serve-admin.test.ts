// Issue 38, the admin page's methods over a raw WebSocket: users listed, added (token and login
// link once), their role, quotas and login links; usage against budgets (left, resets) — an
// admin's of everyone, a member's of their own only; the audit log filtered and paged; the
// node(s); removal ending the user's connection; every change audited as the admin who made it;
// bad input refused with nothing changed; members refused every admin method.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { INIT, text } from "../helpers/hub.js";
import { usageTurn } from "../helpers/mock.js";
import {
  errorOf,
  rawClient,
  resultOf,
  type RawClient,
} from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

async function as(team: TeamHub, user: string): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  resultOf(await c.call("initialize", INIT));
  return c;
}

// One prompt of `tokens` tokens in a new session of the client's user.
async function spend(c: RawClient, tokens: number): Promise<string> {
  const { sessionId } = resultOf<{ sessionId: string }>(
    await c.call("session/new", { cwd: TEAM_WORK, mcpServers: [] }),
  );
  resultOf(
    await c.call("session/prompt", {
      sessionId,
      prompt: text(usageTurn(tokens)),
    }),
  );
  return sessionId;
}

interface Usage {
  users: {
    user: string;
    tokens: number;
    budget?: { left: { tokens?: number }; resetsAt: number; period: string };
  }[];
  now: number;
}

const BUDGET = { limits: { budget: { users: { "*": { tokens: 1000 } } } } };

describe("the admin page's methods", { timeout: 120_000 }, () => {
  it("an admin manages users, quotas, links and reads usage, audit and nodes", async () => {
    const team = await fx.start(
      { root: "admin", alice: "member", bob: "member" },
      BUDGET,
    );
    const root = await as(team, "root");
    const alice = await as(team, "alice");
    const sessionId = await spend(alice, 300);

    // Usage: alice's use of her daily budget, what is left, when it resets.
    const usage = resultOf<Usage>(await root.call("_acphub/usage", {}));
    const a = usage.users.find((u) => u.user === "alice")!;
    expect(a).toMatchObject({
      tokens: 300,
      budget: { period: "day", left: { tokens: 700 } },
    });
    const tomorrow = new Date(usage.now);
    expect(a.budget!.resetsAt).toBe(
      Date.UTC(
        tomorrow.getUTCFullYear(),
        tomorrow.getUTCMonth(),
        tomorrow.getUTCDate() + 1,
      ),
    );
    expect(usage.users.find((u) => u.user === "bob")).toMatchObject({
      tokens: 0,
      budget: { left: { tokens: 1000 } },
    });

    // Users: listed with last seen (alice prompted), added once with a link, duplicates refused.
    const list = resultOf<{ users: { name: string; lastSeen?: number }[] }>(
      await root.call("_acphub/users/list", {}),
    );
    expect(list.users.map((u) => u.name)).toEqual(["alice", "bob", "root"]);
    expect(list.users[0]!.lastSeen).toBeGreaterThan(0);
    const added = resultOf<{ token: string; url: string; expiresAt: number }>(
      await root.call("_acphub/users/add", { name: "carol", role: "viewer" }),
    );
    expect(added.url).toMatch(/\/login\?code=/);
    expect(added.expiresAt).toBeGreaterThan(Date.now());
    const carol = await rawClient(team.h.acpUrl, added.token);
    open.push(carol);
    resultOf(await carol.call("initialize", INIT));
    expect(resultOf(await carol.call("_acphub/whoami", {}))).toEqual({
      name: "carol",
      role: "viewer",
    });
    const link = resultOf<{ url: string }>(
      await root.call("_acphub/users/login", { name: "bob" }),
    );
    expect(link.url).toMatch(/\/login\?code=[\w-]{43}$/);

    // Quotas: read, changed (merged), and bad ones refused with nothing changed.
    expect(
      resultOf(
        await root.call("_acphub/users/limits", {
          name: "bob",
          limits: { liveSessions: 3 },
        }),
      ),
    ).toMatchObject({ limits: { liveSessions: 3 } });
    for (const [params, message] of [
      [
        { name: "bob", limits: { liveSessions: 0 } },
        "invalid limit liveSessions=0: a whole number above 0",
      ],
      [{ name: "bob", limits: { nope: 1 } }, 'unknown limit "nope"'],
      [{ name: "zed", limits: { liveSessions: 1 } }, 'no user named "zed"'],
    ] as const)
      expect(
        errorOf(await root.call("_acphub/users/limits", params)).message,
      ).toContain(message);
    expect(
      resultOf(await root.call("_acphub/users/limits", { name: "bob" })),
    ).toMatchObject({ limits: { liveSessions: 3 } });

    // Bad user changes: refused, nothing changed.
    for (const [method, params, message] of [
      [
        "_acphub/users/add",
        { name: "carol" },
        "a user named carol already exists",
      ],
      [
        "_acphub/users/add",
        { name: "CAROL" },
        'reads like the existing user "carol"',
      ],
      [
        "_acphub/users/add",
        { name: "dave", role: "boss" },
        'invalid role "boss"',
      ],
      ["_acphub/users/add", {}, "takes {name}"],
      [
        "_acphub/users/remove",
        { name: "root" },
        "you cannot remove yourself (root)",
      ],
      ["_acphub/users/remove", { name: "zed" }, 'no user named "zed"'],
      [
        "_acphub/users/role",
        { name: "root", role: "member" },
        "root is the last admin",
      ],
      [
        "_acphub/users/role",
        { name: "bob", role: "boss" },
        'invalid role "boss"',
      ],
    ] as const)
      expect(
        errorOf(await root.call(method, params)).message,
        `${method} ${JSON.stringify(params)}`,
      ).toContain(message);
    expect(
      resultOf<{ users: { name: string; role: string }[] }>(
        await root.call("_acphub/users/list", {}),
      ).users.map((u) => [u.name, u.role]),
    ).toEqual([
      ["alice", "member"],
      ["bob", "member"],
      ["carol", "viewer"],
      ["root", "admin"],
    ]);

    // The serve token's holder (the built-in admin) may not remove the last admin user either.
    const builtin = await as(team, "admin");
    expect(
      errorOf(await builtin.call("_acphub/users/remove", { name: "root" }))
        .message,
    ).toBe(
      "root is the last admin: removing them would leave no user who can manage the hub; make another user admin first",
    );
    // Removal: bob's token stops working at once, as after `acphub users remove`.
    expect(
      resultOf(await root.call("_acphub/users/remove", { name: "bob" })),
    ).toEqual({ removed: "bob" });
    await expect(rawClient(team.h.acpUrl, team.tokens["bob"]!)).rejects.toThrow(
      /upgrade refused: 401/,
    );

    // Audit: filtered by user and action, by session, by time, paged; bad filters refused.
    type Page = {
      entries: {
        user: string;
        action: string;
        detail: Record<string, unknown>;
      }[];
      more: boolean;
    };
    const changes = resultOf<Page>(
      await root.call("_acphub/audit", { user: "root", action: "user.add" }),
    );
    expect(changes.entries.map((e) => [e.user, e.detail])).toEqual([
      ["root", { via: "hub", name: "carol", role: "viewer" }],
    ]);
    const removed = resultOf<Page>(
      await root.call("_acphub/audit", { action: "user.remove" }),
    );
    expect(removed.entries.map((e) => [e.user, e.detail["name"]])).toEqual([
      ["root", "bob"],
    ]);
    const ofSession = resultOf<Page>(
      await root.call("_acphub/audit", { sessionId }),
    );
    expect(ofSession.entries.every((e) => e.user === "alice")).toBe(true);
    expect(ofSession.entries.map((e) => e.action)).toEqual(["prompt"]);
    const all = resultOf<Page>(
      await root.call("_acphub/audit", { limit: 200 }),
    );
    const first = resultOf<Page>(
      await root.call("_acphub/audit", { limit: 2 }),
    );
    const second = resultOf<Page>(
      await root.call("_acphub/audit", { limit: 2, offset: 2 }),
    );
    expect(first.more).toBe(true);
    expect([...first.entries, ...second.entries]).toEqual(
      all.entries.slice(0, 4),
    );
    expect(
      resultOf<Page>(
        await root.call("_acphub/audit", { until: Date.now() - 3_600_000 }),
      ).entries,
    ).toEqual([]);
    for (const [params, message] of [
      [{ since: "yesterday-ish" }, 'since "yesterday-ish" is not a time'],
      [
        { since: 2000, until: 1000 },
        "ends (1970-01-01T00:00:01.000Z) before it starts",
      ],
      [{ limit: 0 }, "limit must be a whole number from 1 to 200"],
      [{ user: 5 }, "user must be a string"],
    ] as const)
      expect(
        errorOf(await root.call("_acphub/audit", params)).message,
      ).toContain(message);

    // Nodes: a single hub is its one node.
    const nodes = resultOf<{
      cluster: boolean;
      nodes: {
        url: string;
        alive: boolean;
        draining: boolean;
        self: boolean;
      }[];
    }>(await root.call("_acphub/nodes", {}));
    expect(nodes.cluster).toBe(false);
    expect(nodes.nodes).toEqual([
      expect.objectContaining({
        url: team.h.url,
        alive: true,
        draining: false,
        self: true,
      }),
    ]);

    // The CLI reads the same log: the page's changes, as root over the hub.
    const cli = await runCli(
      ["audit", "--json", "--user", "root", "--action", "user.login-link"],
      { home: team.home },
    );
    expect(JSON.parse(cli.stdout)).toEqual([
      expect.objectContaining({
        user: "root",
        detail: { via: "hub", name: "carol" },
      }),
      expect.objectContaining({
        user: "root",
        detail: { via: "hub", name: "bob" },
      }),
    ]);
  });

  it("a member reads their own usage only, and every admin method refuses them", async () => {
    const team = await fx.start(
      { root: "admin", alice: "member", vic: "viewer" },
      BUDGET,
    );
    const alice = await as(team, "alice");
    await spend(alice, 250);
    const own = resultOf<Usage>(await alice.call("_acphub/usage", {}));
    expect(own.users).toEqual([
      expect.objectContaining({
        user: "alice",
        tokens: 250,
        budget: expect.objectContaining({ left: { tokens: 750 } }),
      }),
    ]);
    expect(
      errorOf(await alice.call("_acphub/usage", { user: "root" })),
    ).toMatchObject({
      message: "only an admin may read another user's usage (_acphub/usage)",
    });
    const vic = await as(team, "vic");
    expect(
      resultOf<Usage>(await vic.call("_acphub/usage", {})).users.map(
        (u) => u.user,
      ),
    ).toEqual(["vic"]);
    for (const c of [alice, vic])
      for (const [method, params] of [
        ["_acphub/users/list", {}],
        ["_acphub/users/add", { name: "eve" }],
        ["_acphub/users/remove", { name: "root" }],
        ["_acphub/users/login", { name: "root" }],
        [
          "_acphub/users/limits",
          { name: "alice", limits: { liveSessions: 99 } },
        ],
        ["_acphub/users/role", { name: "alice", role: "admin" }],
        ["_acphub/audit", {}],
        ["_acphub/nodes", {}],
      ] as const)
        expect(errorOf(await c.call(method, params))).toMatchObject({
          message: `only an admin may call ${method}`,
          data: expect.objectContaining({ code: "PERMISSION_DENIED" }),
        });
    // Nothing changed.
    const users = JSON.parse(
      (await runCli(["users", "list", "--json"], { home: team.home })).stdout,
    ) as { name: string; role: string }[];
    expect(users.map((u) => [u.name, u.role])).toEqual([
      ["alice", "member"],
      ["root", "admin"],
      ["vic", "viewer"],
    ]);
  });
});
