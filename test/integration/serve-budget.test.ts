// Budgets per user on `acphub serve` (limits.budget.users): the turn that spends alice's daily
// budget finishes, her next prompt is refused with a JSON-RPC error naming her budget and when
// it resets (nothing recorded), and bob, with a budget of his own, is still admitted.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { INIT, text } from "../helpers/hub.js";
import { teamFixture, type TeamHub, TEAM_WORK } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

// A turn whose prompt answer reports `tokens` tokens.
const turnWith = (tokens: number) =>
  JSON.stringify({
    steps: [{ text: "ok" }],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });

// A user's client with one new session.
async function userSession(team: TeamHub, user: string) {
  const c = fx.connect(team, user, "ws");
  await c.agent.request("initialize", INIT);
  const { sessionId } = await c.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd: TEAM_WORK, mcpServers: [] },
  );
  const prompt = (t: string) =>
    c.agent.request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(t),
    });
  const lastSeq = async () =>
    (
      await c.agent.request<{ lastSeq: number }>("_acphub/session/replay", {
        sessionId,
      })
    ).lastSeq;
  return { c, sessionId, prompt, lastSeq };
}

describe("acphub serve: budgets per user", { timeout: 90_000 }, () => {
  it("refuses the user whose budget is spent, and only that user", async () => {
    const team = await fx.start(
      { alice: "member", bob: "member" },
      { limits: { budget: { users: { "*": { tokens: 100 } } } } },
    );
    const alice = await userSession(team, "alice");
    expect((await alice.prompt(turnWith(60))).stopReason).toBe("end_turn");
    expect((await alice.prompt(turnWith(60))).stopReason).toBe("end_turn");
    const seq = await alice.lastSeq();
    await expect(alice.prompt(turnWith(1))).rejects.toMatchObject({
      message: expect.stringMatching(
        /^the daily budget of user alice \(limits\.budget\.users\["\*"\]\) is spent: 120 of 100 tokens used; it resets at /,
      ),
      data: {
        code: "BUDGET_EXCEEDED",
        budget: { scope: "user", name: "alice", used: { tokens: 120 } },
      },
    });
    expect(await alice.lastSeq()).toBe(seq);
    const bob = await userSession(team, "bob");
    expect((await bob.prompt(turnWith(90))).stopReason).toBe("end_turn");

    // acphub usage --by user: each turn counted for whoever sent its prompt.
    const byUser = await runCli(["usage", "--by", "user", "--json"], {
      home: team.home,
    });
    expect(JSON.parse(byUser.stdout)).toEqual([
      expect.objectContaining({ key: "alice", turns: 2, totalTokens: 120 }),
      expect.objectContaining({ key: "bob", turns: 1, totalTokens: 90 }),
    ]);
  });
});
