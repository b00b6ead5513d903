// Budgets in workflows: a step's turn counts against its agent's budget (its usage is kept in
// the ledger like any turn's), and a step whose agent's budget is spent is refused before its
// session opens — the step fails with the budget line and `flow run` exits 1 (a failed step).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, tempDir } from "../helpers/mock.js";

// A turn of the mock agent whose prompt answer reports `tokens` tokens.
const turnWith = (tokens: number) =>
  JSON.stringify({
    steps: [{ text: "ok" }],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });

const SPEND = `name: spend
description: one agent step
steps:
  - id: work
    agent: mock
    prompt: '${turnWith(120)}'
`;

describe("acphub flow run: budgets", { timeout: 90_000 }, () => {
  it("counts a step's tokens and refuses the step once the budget is spent", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    const dir = join(cwd, ".acphub", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "spend.yaml"), SPEND);
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        agents: {
          mock: { command: process.execPath, args: [CLI, "mock-agent"] },
        },
        limits: { budget: { agents: { mock: { tokens: 100 } } } },
      }),
    );
    const flow = () =>
      runCli(["flow", "run", "spend", "--json", "-C", cwd], { home });
    const first = await flow();
    expect(first.code).toBe(0);
    expect(jsonLines(first.stdout).at(-1)).toMatchObject({
      status: "completed",
    });
    const refused = await flow();
    expect(refused.code).toBe(1);
    const end = jsonLines(refused.stdout).at(-1)!;
    expect(end).toMatchObject({ type: "error", code: "WORKFLOW_STEP_FAILED" });
    expect(end["message"]).toMatch(
      /^step work failed: the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent: 120 of 100 tokens used/,
    );
    // The step's usage counts for every way of prompting the agent.
    const run = await runCli(["run", turnWith(1)], { home });
    expect(run.code).toBe(8);
  });
});
