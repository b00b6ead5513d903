// Issue 34, item 5: remembered "always" answers are their user's, and answer only in sessions
// that user owns. bob (a driver) answering "Always allow" in alice's session granted alice's
// agent, in her other sessions of that folder, what she had not allowed; a decision stored
// before decisions had users (the operator's) answered in every member's sessions. Over raw
// frames on the real `acphub serve` (permissions mode ask): alice is asked again in her own
// sessions, the audit says bob's answer was not remembered, and `acphub permissions list`
// names each decision's user.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { steps } from "../helpers/mock.js";
import { rawClient, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

const INIT = { protocolVersion: 1, clientCapabilities: {} };
type Message = Record<string, unknown>;

/** The agent asks to run `make` (onReject: continue, so the turn always ends end_turn). */
const MAKE = steps({
  permission: {
    title: "Run make",
    kind: "execute",
    toolCall: { rawInput: { command: "make" } },
  },
  onReject: "continue",
});

// A raw client of `user` that answers every permission question with `optionId` and counts them.
async function as(team: TeamHub, user: string, optionId: string) {
  const asked: Message[] = [];
  const c = await rawClient(
    team.h.acpUrl,
    team.tokens[user]!,
    (_method, params) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId } };
    },
  );
  open.push(c);
  await c.call("initialize", INIT);
  return { c, asked };
}

async function newSession(c: RawClient, cwd: string): Promise<string> {
  const made = await c.call("session/new", { cwd, mcpServers: [] });
  return (made["result"] as { sessionId: string }).sessionId;
}

// Runs the `make` turn; the text the agent reported (granted or denied, with the option).
async function runMake(c: RawClient, sessionId: string): Promise<string> {
  const from = c.frames.length;
  const answer = await c.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: MAKE }],
  });
  expect(answer["result"]).toMatchObject({ stopReason: "end_turn" });
  return c.frames
    .slice(from)
    .map((m) => JSON.stringify(m))
    .join("")
    .match(/permission (granted|denied) \([\w-]+\)/)![0];
}

const decisions = async (home: string) =>
  JSON.parse(
    (await runCli(["permissions", "list", "--json"], { home })).stdout,
  ) as { user: string; subject: string; decision: string; workspace: string }[];

describe(
  "remembered decisions belong to their user",
  { timeout: 90_000 },
  () => {
    it("bob's Always allow in alice's session is not remembered: alice is asked again in her sessions", async () => {
      const folder = join(mkdtempSync(join(TEAM_WORK, "s-")), "project");
      mkdirSync(folder);
      const team = await fx.start(
        { alice: "member", bob: "member" },
        { permissions: { mode: "ask" } },
      );
      const alice = await as(team, "alice", "reject");
      const bob = await as(team, "bob", "allow-always");
      const first = await newSession(alice.c, folder);
      await alice.c.call("_acphub/session/share", {
        sessionId: first,
        user: "bob",
        role: "driver",
      });
      await bob.c.call("session/load", {
        sessionId: first,
        cwd: folder,
        mcpServers: [],
      });
      // bob drives alice's session and answers Always allow: it holds for his request.
      expect(await runMake(bob.c, first)).toBe(
        "permission granted (allow-always)",
      );
      expect(bob.asked).toHaveLength(1);
      // alice's other session in that folder, and the same one: she is asked, and refuses.
      const second = await newSession(alice.c, folder);
      expect(await runMake(alice.c, second)).toBe("permission denied (reject)");
      expect(await runMake(alice.c, first)).toBe("permission denied (reject)");
      expect(alice.asked).toHaveLength(2);
      expect(await decisions(team.home)).toEqual([]);
      const audit = JSON.parse(
        (
          await runCli(["audit", "--json", "--user", "bob"], {
            home: team.home,
          })
        ).stdout,
      ) as { action: string; detail: Message }[];
      expect(
        audit.find((e) => e.action === "permission.answer")?.detail,
      ).toMatchObject({
        kind: "allow_always",
        remembered:
          "no: bob answered in a session of alice; it holds for this request only",
      });

      // An Always allow in one's own session is remembered for that user, and only theirs.
      const own = await as(team, "alice", "allow-always");
      const third = await newSession(own.c, folder);
      expect(await runMake(own.c, third)).toBe(
        "permission granted (allow-always)",
      );
      expect(await decisions(team.home)).toEqual([
        expect.objectContaining({
          user: "alice",
          workspace: folder,
          subject: "make",
          decision: "allow",
        }),
      ]);
      const fourth = await newSession(alice.c, folder);
      expect(await runMake(alice.c, fourth)).toBe("permission granted (allow)");
      expect(alice.asked).toHaveLength(2);
      const bobs = await newSession(bob.c, folder);
      expect(await runMake(bob.c, bobs)).toBe(
        "permission granted (allow-always)",
      );
      expect(bob.asked).toHaveLength(2);
      const list = await runCli(["permissions", "list"], { home: team.home });
      expect(list.stdout).toMatch(
        new RegExp(`^\\w{8}  alice    allow  execute  "make"  in ${folder}\\n`),
      );
      const mine = await decisions(team.home);
      expect(mine.map((d) => d.user).sort()).toEqual(["alice", "bob"]);
    });

    it("a decision stored before decisions had users is the operator's: it answers in the admin's sessions only", async () => {
      const folder = join(mkdtempSync(join(TEAM_WORK, "s-")), "project");
      mkdirSync(folder);
      const legacy = [
        {
          id: "abc12345",
          workspace: folder,
          kind: "execute",
          subject: "make",
          decision: "allow",
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      ];
      const team = await fx.start(
        { alice: "member" },
        { permissions: { mode: "ask" } },
        [],
        async (home) =>
          writeFileSync(join(home, "permissions.json"), JSON.stringify(legacy)),
      );
      const alice = await as(team, "alice", "reject");
      expect(await runMake(alice.c, await newSession(alice.c, folder))).toBe(
        "permission denied (reject)",
      );
      expect(alice.asked).toHaveLength(1);
      const admin = await as(team, "admin", "reject");
      expect(await runMake(admin.c, await newSession(admin.c, folder))).toBe(
        "permission granted (allow)",
      );
      expect(admin.asked).toHaveLength(0);
      expect(await decisions(team.home)).toEqual([
        { ...legacy[0], user: "admin" },
      ]);
    });
  },
);
