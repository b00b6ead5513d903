// `acphub usage` sums what the agent reported through `acphub acp`: each prompt answer's tokens
// and the growth of the cumulative cost its usage_updates carried, per session and per agent.
import { describe, expect, it } from "vitest";
import { INIT, mockConfig } from "../helpers/editor.js";
import { useEditors, text } from "../helpers/acp-session.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

const start = useEditors();

// A turn whose answer reports these tokens, after a usage_update with this cumulative cost.
const turnWith = (inputTokens: number, outputTokens: number, cost: number) =>
  JSON.stringify({
    steps: [
      {
        usage: {
          used: 100,
          size: 1000,
          cost: { amount: cost, currency: "USD" },
        },
      },
      { text: "ok" },
    ],
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
    },
  });

describe("acphub usage", () => {
  it("matches the usage the mock agent reported, per session and per agent", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = start(home);
    await e.agent.request("initialize", INIT);
    const open = async () =>
      (
        await e.agent.request<{ sessionId: string }>("session/new", {
          cwd: home,
          mcpServers: [],
        })
      ).sessionId;
    const a = await open();
    const b = await open();
    const prompt = (sessionId: string, t: string) =>
      e.agent.request("session/prompt", { sessionId, prompt: text(t) });
    await prompt(a, turnWith(10, 5, 0.5));
    await prompt(a, turnWith(20, 7, 1.25)); // cumulative: the session cost 1.25 in all
    await prompt(b, turnWith(3, 2, 0.1));

    const bySession = await runCli(["usage", "--by", "session", "--json"], {
      home,
    });
    expect(bySession.stderr).toBe("");
    const rows = JSON.parse(bySession.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r["key"] === a)).toMatchObject({
      turns: 2,
      inputTokens: 30,
      outputTokens: 12,
      totalTokens: 42,
      cost: 1.25,
      currency: "USD",
    });
    expect(rows.find((r) => r["key"] === b)).toMatchObject({
      turns: 1,
      totalTokens: 5,
      cost: 0.1,
    });

    const byAgent = await runCli(["usage", "--json"], { home });
    const [mock] = JSON.parse(byAgent.stdout) as Record<string, unknown>[];
    expect(mock).toMatchObject({
      key: "mock",
      sessions: 2,
      turns: 3,
      totalTokens: 47,
    });
    expect(mock!["cost"]).toBeCloseTo(1.35);

    const later = await runCli(["usage", "--since", "2999-01-01", "--json"], {
      home,
    });
    expect(JSON.parse(later.stdout)).toEqual([]);
    const bad = await runCli(["usage", "--since", "yesterday-ish"], { home });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--since "yesterday-ish"');
  });
});
