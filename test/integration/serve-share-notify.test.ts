// Sharing tells the user it concerns (issue 22, the page's sharing dialog): a watching client
// of the user a session is shared with hears `_acphub/sessions/changed` for it at once (the
// page's session list reloads and shows it), and hears it again when it is unshared (the list
// drops it). A member it does not concern hears nothing of it. Sharing a session with its owner
// is refused (it would overwrite the owner's grant).
import { afterEach, describe, expect, it } from "vitest";
import { INIT, until, type HubTestClient } from "../helpers/hub.js";
import { teamFixture, type TeamHub, TEAM_WORK } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const WATCH = {
  ...INIT,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
};

// A watching client of `user` (as the web page connects).
async function watcher(team: TeamHub, user: string): Promise<HubTestClient> {
  const c = fx.connect(team, user, "ws");
  await c.agent.request("initialize", WATCH);
  return c;
}

const changes = (c: HubTestClient, sessionId: string) =>
  c.notifications.filter(
    (n) =>
      n.method === "_acphub/sessions/changed" &&
      n.params["sessionId"] === sessionId,
  ).length;

const listIds = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      {},
    )
  ).sessions.map((s) => s.sessionId);

describe("acphub serve: sharing is told to the user it concerns", () => {
  it("share and unshare each reach the other member's watching client, and no one else's", async () => {
    const team = await fx.start({
      alice: "member",
      bob: "member",
      carol: "member",
    });
    const alice = await watcher(team, "alice");
    const bob = await watcher(team, "bob");
    const carol = await watcher(team, "carol");
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await alice.agent.request("session/set_title", {
      sessionId,
      title: "shared work",
    });
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "viewer",
    });
    await until(() => changes(bob, sessionId) === 1);
    const told = bob.notifications.find(
      (n) => n.method === "_acphub/sessions/changed",
    )!;
    expect(told.params).toMatchObject({ sessionId, title: "shared work" });
    expect(await listIds(bob)).toEqual([sessionId]);

    await alice.agent.request("_acphub/session/unshare", {
      sessionId,
      user: "bob",
    });
    await until(() => changes(bob, sessionId) === 2);
    expect(await listIds(bob)).toEqual([]);
    // carol saw nothing of it; a later change of the session is not told to bob any more.
    await alice.agent.request("session/set_title", {
      sessionId,
      title: "alice only",
    });
    await until(() =>
      alice.notifications.some((n) => n.params["title"] === "alice only"),
    );
    expect(changes(carol, sessionId)).toBe(0);
    expect(changes(bob, sessionId)).toBe(2);
  });

  it("sharing with the owner is refused and leaves the owner's grant as it was", async () => {
    const team = await fx.start({ alice: "member" });
    const alice = await watcher(team, "alice");
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await expect(
      alice.agent.request("_acphub/session/share", {
        sessionId,
        user: "alice",
        role: "viewer",
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        `alice owns session ${sessionId}: an owner's access is not changed by sharing`,
      ),
    });
    expect(
      await alice.agent.request("_acphub/session/grants", { sessionId }),
    ).toEqual({ grants: [{ sessionId, user: "alice", role: "owner" }] });
    expect(
      await alice.agent.request("session/delete", { sessionId }),
    ).toBeDefined();
  });
});
