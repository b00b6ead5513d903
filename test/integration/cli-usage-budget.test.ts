// Issue 38: `acphub usage` says what is LEFT of a budget and WHEN IT RESETS (text and --json,
// from the same function as the admin page's `_acphub/usage`), and `acphub audit` filters by
// action, session and a time range's end, refusing a bad one.
import { describe, expect, it } from "vitest";
import { INIT, mockConfig } from "../helpers/editor.js";
import { useEditors, text } from "../helpers/acp-session.js";
import { runCli } from "../helpers/cli.js";
import { tempDir, usageTurn } from "../helpers/mock.js";

const start = useEditors();

describe("acphub usage: left and resets", () => {
  it("shows each budget's remainder and its reset, in text and JSON", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: {
        budget: { agents: { mock: { tokens: 100, cost: 2, period: "month" } } },
      },
    });
    const e = start(home);
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: text(usageTurn(40, 0.5)),
    });
    const now = new Date();
    const reset = new Date(
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
    );

    const json = await runCli(["usage", "--json"], { home });
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        key: "mock",
        totalTokens: 40,
        budget: {
          key: "mock",
          period: "month",
          limit: { tokens: 100, cost: 2 },
          used: { tokens: 40, cost: 0.5, currency: "USD" },
          left: { tokens: 60, cost: 1.5 },
          resetsAt: reset.toISOString(),
        },
      }),
    ]);
    const day = reset.toISOString().slice(0, 10);
    const plain = await runCli(["usage"], { home });
    expect(plain.stdout).toContain(
      `budget: left 60 of 100 tokens, 1.5 of 2 USD cost (monthly); resets ${day} 00:00 UTC (in `,
    );
    // Per session: no budget of its own.
    const bySession = await runCli(["usage", "--by", "session", "--json"], {
      home,
    });
    expect(JSON.parse(bySession.stdout)[0]).not.toHaveProperty("budget");
  });
});

describe("acphub audit: filters", () => {
  it("filters by action, session and --until; refuses a bad or reversed range", async () => {
    const home = tempDir();
    mockConfig(home);
    for (const args of [
      ["users", "add", "root", "--role", "admin"],
      ["users", "add", "alice"],
      ["users", "role", "alice", "viewer"],
      ["users", "limits", "alice", "--live-sessions", "2"],
    ])
      expect((await runCli(args, { home })).code).toBe(0);
    const audit = async (...args: string[]) =>
      JSON.parse(
        (await runCli(["audit", "--json", ...args], { home })).stdout,
      ) as { action: string; detail: Record<string, unknown> }[];
    expect((await audit()).map((e) => e.action)).toEqual([
      "user.add",
      "user.add",
      "user.role",
      "user.limits",
    ]);
    expect((await audit("--action", "user.role")).map((e) => e.detail)).toEqual(
      [{ via: "cli", name: "alice", role: "viewer", previous: "member" }],
    );
    expect(await audit("--until", "1d")).toEqual([]);
    expect(await audit("--session", "hub-none")).toEqual([]);
    expect((await audit("--until", "2999-01-01")).length).toBe(4);
    for (const [args, message] of [
      [
        ["--until", "soon"],
        '--until "soon": give a duration back from now (30m, 2h, 7d) or a date (2026-12-01T09:00Z)',
      ],
      [
        ["--since", "2026-01-02", "--until", "2026-01-01"],
        "the audit's time range ends (2026-01-01T00:00:00.000Z) before it starts (2026-01-02T00:00:00.000Z)",
      ],
    ] as const) {
      const r = await runCli(["audit", ...args], { home });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        "",
        `acphub: ${message}\n`,
      ]);
    }
  });
});
