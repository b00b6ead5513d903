// Prompts refused on `acphub serve`'s own admission (hub/prompt-admission.ts) are traced as `acp`,
// `run` and `chat` trace theirs (issue 40 follow-up): each refusal — the gateway's size limit, a
// user's quota, a user's spent budget — is an `invoke_agent` span in error whose `error.type` is
// the refusal's code, naming the user (`enduser.id`) and the session, its line as the status.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INIT, text } from "../helpers/hub.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";

const team = teamFixture();
let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(async () => {
  await team.cleanup();
  await otlp.close();
});

// A turn whose prompt answer reports `tokens` tokens.
const turnWith = (tokens: number) =>
  JSON.stringify({
    steps: [{ text: "ok" }],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });

describe("acphub serve: spans of refused prompts", { timeout: 90_000 }, () => {
  it("a limit, a quota and a spent budget each give a refusal span naming the user", async () => {
    const t = await team.start(
      { alice: "member" },
      {
        telemetry: { endpoint: otlp.endpoint },
        limits: {
          maxPromptBytes: 4000,
          budget: { users: { "*": { tokens: 100 } } },
        },
        users: { limits: { promptBytes: 2000 } },
      },
    );
    const c = team.connect(t, "alice", "ws");
    await c.agent.request("initialize", INIT);
    const { sessionId } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    const prompt = (body: string) =>
      c.agent.request("session/prompt", { sessionId, prompt: text(body) });
    const refusedWith = async (body: string, line: RegExp, code: string) => {
      await expect(prompt(body)).rejects.toMatchObject({
        message: expect.stringMatching(line),
        data: { code },
      });
    };
    await refusedWith(
      "x".repeat(5000),
      /limits\.maxPromptBytes/,
      "LIMIT_EXCEEDED",
    );
    await refusedWith(
      "y".repeat(3000),
      /users\.limits\.promptBytes/,
      "LIMIT_EXCEEDED",
    );
    await prompt(turnWith(120));
    await refusedWith(turnWith(1), /budget of user alice/, "BUDGET_EXCEEDED");

    const refusals = () =>
      otlp.spans.filter(
        (s) =>
          s.name === "invoke_agent mock" &&
          s.attributes["error.type"] !== undefined,
      );
    await otlp.waitFor(() => refusals().length >= 3);
    const seen = refusals().map((s) => ({
      type: s.attributes["error.type"],
      user: s.attributes["enduser.id"],
      session: s.attributes["gen_ai.conversation.id"],
      error: s.status?.code,
      message: s.status?.message,
    }));
    const common = { user: "alice", session: sessionId, error: 2 };
    expect(seen).toEqual(
      expect.arrayContaining([
        {
          ...common,
          type: "LIMIT_EXCEEDED",
          message: expect.stringContaining("limits.maxPromptBytes"),
        },
        {
          ...common,
          type: "LIMIT_EXCEEDED",
          message: expect.stringContaining("users.limits.promptBytes"),
        },
        {
          ...common,
          type: "BUDGET_EXCEEDED",
          message: expect.stringContaining("budget of user alice"),
        },
      ]),
    );
    // The turn that ran is a span of its own, not in error.
    expect(
      otlp.spans.filter(
        (s) =>
          s.name === "invoke_agent mock" &&
          s.attributes["error.type"] === undefined,
      ),
    ).toHaveLength(1);
  });
});
