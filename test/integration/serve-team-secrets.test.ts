// `_acphub/secrets/set|list|remove` over the hub (issue 36), in raw frames: an admin manages
// anyone's secrets, a member only their own (another's is refused, -32001, changing nothing),
// a viewer may list and remove their own but set none; values are never answered back, never
// in the ledger's bytes or the audit log, and the command line sees what the hub set.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  errorOf,
  rawClient,
  resultOf,
  type RawClient,
} from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";
import { CLI } from "../helpers/mock.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

const INIT = { protocolVersion: 1, clientCapabilities: {} };
const ALICE = "sk-alice-over-the-hub-0123456789";
const BOB = "sk-bob-set-by-admin-0123456789";

async function as(team: TeamHub, user: string): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  await c.call("initialize", INIT);
  return c;
}

const names = async (c: RawClient, user?: string) =>
  resultOf<{ user: string; secrets: { name: string }[] }>(
    await c.call("_acphub/secrets/list", user ? { user } : {}),
  ).secrets.map((s) => s.name);

describe("secrets over the hub", { timeout: 90_000 }, () => {
  it("a member sets, lists and removes their own only; an admin anyone's; a viewer sets none", async () => {
    const team = await fx.start({
      alice: "member",
      bob: "member",
      vic: "viewer",
    });
    const [alice, admin, vic] = [
      await as(team, "alice"),
      await as(team, "admin"),
      await as(team, "vic"),
    ];
    const set = await alice.call("_acphub/secrets/set", {
      name: "OPENAI_API_KEY",
      value: ALICE,
    });
    expect(resultOf(set)).toEqual({
      user: "alice",
      name: "OPENAI_API_KEY",
      updatedAt: expect.any(Number),
    });
    expect(JSON.stringify(set)).not.toContain(ALICE);
    expect(await names(alice)).toEqual(["OPENAI_API_KEY"]);
    // alice naming bob: refused, for every method; bob's secrets unchanged.
    expect(
      resultOf(
        await admin.call("_acphub/secrets/set", {
          user: "bob",
          name: "OPENAI_API_KEY",
          value: BOB,
        }),
      ),
    ).toMatchObject({ user: "bob" });
    for (const [method, params] of [
      ["_acphub/secrets/set", { user: "bob", name: "X_KEY", value: ALICE }],
      ["_acphub/secrets/list", { user: "bob" }],
      ["_acphub/secrets/remove", { user: "bob", name: "OPENAI_API_KEY" }],
    ] as const)
      expect(errorOf(await alice.call(method, params))).toEqual({
        code: -32001,
        message: "alice may manage only their own secrets, not bob's",
        data: expect.objectContaining({ code: "PERMISSION_DENIED" }),
      });
    expect(await names(admin, "bob")).toEqual(["OPENAI_API_KEY"]);
    // A viewer starts no agents: no secret of theirs is set; listing their own is fine.
    expect(
      errorOf(
        await vic.call("_acphub/secrets/set", { name: "A_KEY", value: ALICE }),
      ).message,
    ).toMatch(/^vic is a viewer: a viewer starts no agents/);
    expect(await names(vic)).toEqual([]);
    // Bad input over the wire: the same checks as the command line.
    expect(
      errorOf(
        await alice.call("_acphub/secrets/set", {
          name: "NOT-A-NAME",
          value: "v",
        }),
      ),
    ).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^invalid secret name "NOT-A-NAME"/),
    });
    expect(
      errorOf(
        await alice.call("_acphub/secrets/set", {
          name: "BIG",
          value: "x".repeat(65_537),
        }),
      ).message,
    ).toContain("a secret holds at most 65536 (64 KiB)");
    // What the hub set, the command line lists; neither value is in the ledger or audit log.
    const cli = await runCli(["users", "secrets", "list", "alice", "--json"], {
      home: team.home,
    });
    expect(JSON.parse(cli.stdout)).toEqual([
      { name: "OPENAI_API_KEY", updatedAt: expect.any(String) },
    ]);
    const bytes = Buffer.concat(
      ["ledger.db", "ledger.db-wal"]
        .map((f) => join(team.home, f))
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    );
    expect([bytes.includes(ALICE), bytes.includes(BOB)]).toEqual([
      false,
      false,
    ]);
    const audit = await runCli(["audit", "--json"], { home: team.home });
    expect(audit.stdout).not.toContain(ALICE);
    const set2 = (
      JSON.parse(audit.stdout) as {
        user: string;
        action: string;
        detail: unknown;
      }[]
    )
      .filter((e) => e.action.startsWith("secret."))
      .map((e) => [e.user, e.action, e.detail]);
    expect(set2).toEqual([
      [
        "alice",
        "secret.set",
        { via: "hub", user: "alice", name: "OPENAI_API_KEY" },
      ],
      [
        "admin",
        "secret.set",
        { via: "hub", user: "bob", name: "OPENAI_API_KEY" },
      ],
    ]);
    expect(
      resultOf(
        await alice.call("_acphub/secrets/remove", { name: "OPENAI_API_KEY" }),
      ),
    ).toEqual({ user: "alice", removed: "OPENAI_API_KEY" });
    expect(await names(alice)).toEqual([]);
    expect(await names(admin, "bob")).toEqual(["OPENAI_API_KEY"]);
  });

  it("a session whose owner lacks a secret its agent's env names is refused at session/new, before any agent starts", async () => {
    const team = await fx.start(
      { alice: "member", bob: "member" },
      {
        agents: {
          mock: {
            command: process.execPath,
            args: [CLI, "mock-agent"],
            env: { OPENAI_API_KEY: "${secret:OPENAI_API_KEY}" },
          },
        },
      },
    );
    const bob = await as(team, "bob");
    const refused = await bob.call("session/new", {
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(errorOf(refused)).toEqual({
      code: -32602,
      message:
        "agent mock needs the secret OPENAI_API_KEY, which bob has not set: set it with `acphub users secrets set bob OPENAI_API_KEY` (the value on stdin) or in the web page's user menu (Secrets)",
      data: { code: "SECRET_MISSING", retryable: false },
    });
    // Nothing was made: no session in the ledger, no agent spawned.
    const list = await runCli(["sessions", "list", "--json"], {
      home: team.home,
    });
    expect(JSON.parse(list.stdout)).toEqual([]);
    // Once bob sets it (over the hub), the check passes: what starts next is his agent.
    await bob.call("_acphub/secrets/set", {
      name: "OPENAI_API_KEY",
      value: "sk-bob-own-key-0123456789",
    });
    // (initialize, asked of the admin's process, lacking it, did not refuse either.)
    const again = resultOf<{ sessionId: string }>(
      await bob.call("session/new", { cwd: TEAM_WORK, mcpServers: [] }),
    );
    expect(
      resultOf(
        await bob.call("session/prompt", {
          sessionId: again.sessionId,
          prompt: [{ type: "text", text: "hello" }],
        }),
      ),
    ).toMatchObject({ stopReason: "end_turn" });
  });

  it("a value set before the hub started, or given to it, is masked in what it stores and logs: sessions show --json holds ***", async () => {
    const OLD = "sk-alice-set-before-start-0123456789";
    const team = await fx.start({ alice: "member" }, {}, [], async (home) => {
      const set = await runCli(
        ["users", "secrets", "set", "alice", "OLD_KEY"],
        {
          home,
          input: OLD,
        },
      );
      expect(set.code).toBe(0);
    });
    const alice = await as(team, "alice");
    const VALUE = "sk-alice-pasted-by-mistake-0123456789";
    resultOf(
      await alice.call("_acphub/secrets/set", { name: "MY_KEY", value: VALUE }),
    );
    const made = resultOf<{ sessionId: string }>(
      await alice.call("session/new", { cwd: TEAM_WORK, mcpServers: [] }),
    );
    resultOf(
      await alice.call("session/prompt", {
        sessionId: made.sessionId,
        prompt: [{ type: "text", text: `here is my key ${VALUE} oops ${OLD}` }],
      }),
    );
    const show = await runCli(["sessions", "show", made.sessionId, "--json"], {
      home: team.home,
    });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("here is my key *** oops ***");
    expect(show.stdout).not.toContain(VALUE);
    expect(team.h.stderr()).not.toContain(VALUE);
    expect(team.h.stderr()).not.toContain(OLD);
    const bytes = Buffer.concat(
      ["ledger.db", "ledger.db-wal"]
        .map((f) => join(team.home, f))
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    );
    expect([bytes.includes(VALUE), bytes.includes(OLD)]).toEqual([
      false,
      false,
    ]);
  });
});
