// Budgets through `acphub acp` (limits.budget): the turn that spends an agent's daily budget
// finishes with a notice, the next prompt is refused with a JSON-RPC error naming the budget,
// its use and when it resets (nothing of it recorded), a turn passing 80 % earns a notice, and
// a new day (a later acp, its clock moved past midnight UTC) admits prompts again.
import { describe, expect, it } from "vitest";
import { INIT, mockConfig } from "../helpers/editor.js";
import { useEditors, text } from "../helpers/acp-session.js";
import { runCli } from "../helpers/cli.js";
import { tempDir, usageTurn } from "../helpers/mock.js";

const start = useEditors();

type Update = {
  sessionUpdate: string;
  title?: string;
  content?: { text?: string };
};

// The notices' text (as notices or as [acphub] lines) among the updates since `from`.
function noticesSince(
  updates: Record<string, unknown>[],
  from: number,
): string {
  return updates
    .slice(from)
    .map((u) => u["update"] as Update)
    .map((u) =>
      u.sessionUpdate === "notice"
        ? (u.title ?? "")
        : (u.content?.text ?? "").includes("[acphub]")
          ? (u.content?.text ?? "")
          : "",
    )
    .join("");
}

// Milliseconds to add to now to be just past the next UTC midnight.
function toNextDay(): number {
  const now = new Date();
  const next = Date.UTC(
    now.getUTCFullYear(),
    now.getUTCMonth(),
    now.getUTCDate() + 1,
  );
  return next - now.getTime() + 60_000;
}

describe("budgets through acphub acp", () => {
  it("finishes the turn that spends the budget, refuses the next, admits one the next day", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { mock: { tokens: 100, period: "day" } } } },
    });
    const e = start(home);
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      {
        cwd: home,
        mcpServers: [],
      },
    );
    const prompt = (t: string) =>
      e.agent.request<{ stopReason: string }>("session/prompt", {
        sessionId,
        prompt: text(t),
      });

    let from = e.updates().length;
    expect((await prompt(usageTurn(50))).stopReason).toBe("end_turn");
    expect(noticesSince(e.updates(), from)).toBe("");

    from = e.updates().length;
    expect((await prompt(usageTurn(35))).stopReason).toBe("end_turn");
    expect(noticesSince(e.updates(), from)).toMatch(
      /85 % of the daily budget of agent mock \(limits\.budget\.agents\.mock\) is used \(85 of 100 tokens\); it resets at \d{4}-\d\d-\d\d 00:00 UTC/,
    );

    from = e.updates().length;
    expect((await prompt(usageTurn(40))).stopReason).toBe("end_turn");
    expect(noticesSince(e.updates(), from)).toMatch(
      /the daily budget of agent mock .* is spent \(125 of 100 tokens\): the next prompt is refused until/,
    );

    const events = async () =>
      (
        JSON.parse(
          (await runCli(["sessions", "show", sessionId, "--json"], { home }))
            .stdout,
        ) as {
          events: unknown[];
        }
      ).events.length;
    const stored = await events();
    from = e.updates().length;
    const refused = prompt(usageTurn(1));
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /^the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent: 125 of 100 tokens used; it resets at \d{4}-\d\d-\d\d 00:00 UTC \(in /,
      ),
      data: {
        code: "BUDGET_EXCEEDED",
        budget: {
          scope: "agent",
          name: "mock",
          period: "day",
          limit: { tokens: 100 },
          used: { tokens: 125 },
          resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
        },
      },
    });
    expect(e.updates().length).toBe(from);
    expect(await events()).toBe(stored);

    // The next day: a new acp on the same ledger admits the session's prompt again.
    e.child.kill("SIGTERM");
    await e.exited;
    const next = start(home, {
      env: { ACPHUB_BUDGET_CLOCK_OFFSET_MS: String(toNextDay()) },
    });
    await next.agent.request("initialize", INIT);
    await next.agent.request("session/resume", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const again = await next.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(usageTurn(10)),
      },
    );
    expect(again.stopReason).toBe("end_turn");
  });

  it("counts the cost agents report against a cost budget", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { "*": { cost: 1, period: "month" } } } },
    });
    const e = start(home);
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      {
        cwd: home,
        mcpServers: [],
      },
    );
    const prompt = (t: string) =>
      e.agent.request("session/prompt", { sessionId, prompt: text(t) });
    await prompt(usageTurn(1, 0.4));
    await prompt(usageTurn(1, 1.1)); // cumulative: 1.1 in all
    await expect(prompt(usageTurn(1, 1.2))).rejects.toMatchObject({
      message: expect.stringMatching(
        /^the monthly budget of agent mock \(limits\.budget\.agents\["\*"\]\) is spent: 1\.1 of 1 USD cost used; it resets at \d{4}-\d\d-01 00:00 UTC/,
      ),
    });
  });
});
