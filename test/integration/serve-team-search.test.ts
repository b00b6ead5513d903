// A member's session list and search see only their sessions, and find them however many newer
// sessions they may not see the hub holds (issue 35): both are one ledger query filtered by the
// member's grants. Before, search looked at the newest 200 sessions of all and then dropped the
// member's others, and session/list read at most 50 pages of all sessions for a visible one.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { INIT, text } from "../helpers/hub.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

/** More newer sessions than search looked at (200) and than the list read (50 pages of 50). */
const NEWER = 2_600;

describe("acphub serve: a member's sessions behind many others", () => {
  it("session/list and search find hers, and only hers", async () => {
    const team = await fx.start({ alice: "member", bob: "member" });
    const alice = fx.connect(team, "alice", "ws");
    await alice.agent.request("initialize", INIT);
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await alice.agent.request("session/prompt", {
      sessionId,
      prompt: text("the unicorn meadow"),
    });
    // Others' sessions, all newer than hers, written beside the running hub.
    const ledger = new SqliteLedger(join(team.home, "ledger.db"));
    const now = Date.now();
    for (let i = 1; i <= NEWER; i++)
      await ledger.createSession({
        id: `other-${i}`,
        agent: "mock",
        cwd: TEAM_WORK,
        title: `unicorn ${i}`,
        createdAt: now + i,
        updatedAt: now + i,
        state: "active",
        agentSessionId: null,
        request: { mcpServers: [] },
      });
    await ledger.close();

    const listed = await alice.agent.request<{
      sessions: { sessionId: string; _meta: { acphub: { agent: string } } }[];
    }>("session/list", {});
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(listed.sessions[0]!._meta.acphub.agent).toBe("mock");
    const found = await alice.agent.request<{ sessionIds: string[] }>(
      "_acphub/sessions/search",
      { query: "unicorn" },
    );
    expect(found.sessionIds).toEqual([sessionId]);

    const bob = fx.connect(team, "bob", "ws");
    await bob.agent.request("initialize", INIT);
    const none = await bob.agent.request<{ sessionIds: string[] }>(
      "_acphub/sessions/search",
      { query: "unicorn" },
    );
    expect(none.sessionIds).toEqual([]);
    expect(
      (await bob.agent.request<{ sessions: unknown[] }>("session/list", {}))
        .sessions,
    ).toEqual([]);
    // The admin sees everyone's: the newest 100 of the matches.
    const admin = fx.connect(team, "admin", "ws");
    await admin.agent.request("initialize", INIT);
    const all = await admin.agent.request<{ sessionIds: string[] }>(
      "_acphub/sessions/search",
      { query: "UNICORN" },
    );
    expect(all.sessionIds).toHaveLength(100);
    expect(all.sessionIds[0]).toBe(`other-${NEWER}`);
  });
});
