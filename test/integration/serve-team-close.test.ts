// Issue 34, item 7: on a hub with users, `session/close` detaches the client that sends it; it
// never ends a turn someone else drives. alice's turn waits on a file while bob (viewer) and
// carol (driver) each close the session over raw frames, also once alice's own connection has
// gone (a page reload, a reconnecting shim): her turn still ends `end_turn`, never `cancelled`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { rawClient, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const INIT = { protocolVersion: 1, clientCapabilities: {} };
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

// A raw client of `user`, initialized.
async function as(team: TeamHub, user: string): Promise<RawClient> {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  expect((await c.call("initialize", INIT))["result"]).toBeDefined();
  return c;
}

// alice's session shared with bob (viewer) and carol (driver), her turn waiting on `gate`.
async function aliceTurn(team: TeamHub, gate: string) {
  const alice = await as(team, "alice");
  const made = await alice.call("session/new", {
    cwd: TEAM_WORK,
    mcpServers: [],
  });
  const { sessionId } = made["result"] as { sessionId: string };
  for (const [user, role] of [
    ["bob", "viewer"],
    ["carol", "driver"],
  ])
    await alice.call("_acphub/session/share", { sessionId, user, role });
  const script = steps(
    { text: "before " },
    { waitFile: gate },
    { text: "after" },
  );
  const turn = alice.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: script }],
  });
  await until(() =>
    alice.frames.some((m) => JSON.stringify(m).includes('"before "')),
  );
  return { alice, sessionId, turn };
}

// `user` loads the session, then closes it; the close's answer.
async function closeAs(team: TeamHub, user: string, sessionId: string) {
  const c = await as(team, user);
  await c.call("session/load", { sessionId, cwd: TEAM_WORK, mcpServers: [] });
  return c.call("session/close", { sessionId });
}

describe(
  "acphub serve: session/close never ends a turn someone else drives",
  { timeout: 60_000 },
  () => {
    it("a viewer's and a driver's close detach them; alice's turn ends end_turn", async () => {
      const team = await fx.start({
        alice: "member",
        bob: "member",
        carol: "member",
      });
      const gate = join(tempDir(), "go");
      const { sessionId, turn } = await aliceTurn(team, gate);
      for (const user of ["bob", "carol"]) {
        const closed = await closeAs(team, user, sessionId);
        expect(closed["error"]).toBeUndefined();
      }
      // Without a session/load, a close still changes nothing of the running turn.
      const stranger = await as(team, "bob");
      await stranger.call("session/close", { sessionId });
      writeFileSync(gate, "");
      expect((await turn)["result"]).toMatchObject({ stopReason: "end_turn" });
    });

    it("with alice's connection gone, the others' close still leaves her turn running", async () => {
      const team = await fx.start({
        alice: "member",
        bob: "member",
        carol: "member",
      });
      const gate = join(tempDir(), "go");
      const { alice, sessionId } = await aliceTurn(team, gate);
      alice.close();
      for (const user of ["bob", "carol"]) {
        const closed = await closeAs(team, user, sessionId);
        expect(closed["error"]).toBeUndefined();
      }
      writeFileSync(gate, "");
      // alice comes back once the turn is over: it ran to its end, with the text after the gate.
      const back = await as(team, "alice");
      await until(async () => {
        const list = await back.call("session/list", {});
        return JSON.stringify(list).includes('"running":false');
      });
      const load = await back.call("session/load", {
        sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      });
      expect(load["error"]).toBeUndefined();
      expect(JSON.stringify(back.frames)).toContain("before after");
    });
  },
);
