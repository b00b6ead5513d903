// Issue 34, item 6: one writer of shares, with the owner guard. `acphub sessions share ID
// --with OWNER --role viewer` demoted the owner (the hub refused the same change); now the CLI
// and `_acphub/session/share|unshare` meet the same checks: an owner's grant is changed by
// neither, with exit 2 / -32602 and the same words, and the owner still drives their session.
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

async function as(team: TeamHub, user: string): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  await c.call("initialize", INIT);
  return c;
}

// alice's new session over raw frames.
async function aliceSession(team: TeamHub) {
  const alice = await as(team, "alice");
  const made = await alice.call("session/new", {
    cwd: TEAM_WORK,
    mcpServers: [],
  });
  return {
    alice,
    sessionId: (made["result"] as { sessionId: string }).sessionId,
  };
}

const grantsOf = async (c: RawClient, sessionId: string) =>
  (await c.call("_acphub/session/grants", { sessionId }))["result"];

describe(
  "one writer of shares, with the owner guard",
  { timeout: 60_000 },
  () => {
    it("acphub sessions share|unshare --with the owner is refused and changes nothing", async () => {
      const team = await fx.start({ alice: "member", bob: "member" });
      const { alice, sessionId } = await aliceSession(team);
      const owned = { grants: [{ sessionId, user: "alice", role: "owner" }] };
      const refusal = `alice owns session ${sessionId}: an owner's access is not changed by sharing`;
      for (const args of [
        ["share", sessionId, "--with", "alice", "--role", "viewer"],
        ["share", sessionId, "--with", "alice", "--role", "driver"],
        ["share", sessionId, "--with", "alice"],
        ["unshare", sessionId, "--with", "alice"],
      ]) {
        const cli = await runCli(["sessions", ...args], { home: team.home });
        expect([cli.code, cli.stdout, cli.stderr]).toEqual([
          2,
          "",
          `acphub: ${refusal}\n`,
        ]);
        expect(await grantsOf(alice, sessionId)).toEqual(owned);
      }
      // Over the wire, the same words for both changes.
      for (const method of [
        "_acphub/session/share",
        "_acphub/session/unshare",
      ]) {
        const answer = await alice.call(method, {
          sessionId,
          user: "alice",
          role: "viewer",
        });
        expect(answer["error"]).toMatchObject({
          code: -32602,
          message: refusal,
        });
      }
      expect(await grantsOf(alice, sessionId)).toEqual(owned);
      // alice still drives her session.
      const turn = await alice.call("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: steps({ text: "still mine" }) }],
      });
      expect(turn["result"]).toMatchObject({ stopReason: "end_turn" });
      // Sharing with someone else still works from both, audited as each.
      const cli = await runCli(
        ["sessions", "share", sessionId, "--with", "bob", "--role", "viewer"],
        { home: team.home },
      );
      expect([cli.code, cli.stdout]).toEqual([
        0,
        `shared ${sessionId} with bob (viewer)\n`,
      ]);
      const again = await alice.call("_acphub/session/share", {
        sessionId,
        user: "bob",
        role: "driver",
      });
      expect(again["result"]).toEqual({
        sessionId,
        user: "bob",
        role: "driver",
      });
      const audit = await runCli(["audit", "--json"], { home: team.home });
      expect(audit.code).toBe(0);
      const shares = (JSON.parse(audit.stdout) as Record<string, unknown>[])
        .filter(
          (e) =>
            e["action"] === "session.share" && e["sessionId"] === sessionId,
        )
        .map((e) => [e["user"], e["detail"]]);
      expect(shares).toEqual([
        ["cli", { user: "bob", role: "viewer" }],
        ["alice", { user: "bob", role: "driver" }],
      ]);
    });
  },
);
