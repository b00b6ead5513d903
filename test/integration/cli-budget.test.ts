// Budgets through `acphub run`: each run is a new process that reads the day's usage from the
// ledger, so the run after the one that spent the agent's budget is refused (exit 8, one clear
// line, nothing recorded), and a run on the next day (its clock moved past midnight UTC) is
// admitted again.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { mockConfig } from "../helpers/editor.js";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

// A turn whose prompt answer reports `tokens` tokens.
const turnWith = (tokens: number) =>
  JSON.stringify({
    steps: [{ text: "ok" }],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });

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

describe("budgets through acphub run", { timeout: 60_000 }, () => {
  it("exits 8 once the day's budget is spent, and runs again the next day", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { mock: { tokens: 100 } } } },
    });
    const first = await runCli(["run", turnWith(120)], { home });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /acphub: the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent \(120 of 100 tokens\): the next prompt is refused until/,
    );
    const refused = await runCli(["run", turnWith(1)], { home });
    expect(refused.code).toBe(8);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(
      /^acphub: the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent: 120 of 100 tokens used; it resets at \d{4}-\d\d-\d\d 00:00 UTC \(in .+\)\n/,
    );
    const json = await runCli(["run", "--json", turnWith(1)], { home });
    expect(json.code).toBe(8);
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "BUDGET_EXCEEDED",
    });

    const tomorrow = await runCli(["run", turnWith(1)], {
      home,
      env: { ACPHUB_BUDGET_CLOCK_OFFSET_MS: String(toNextDay()) },
    });
    expect(tomorrow.code).toBe(0);
    expect(tomorrow.stdout).toContain("ok");
    // The refused runs recorded no prompt: two prompts in all.
    const ledger = new SqliteLedger(join(home, "ledger.db"));
    let prompts = 0;
    for (const { id } of (await ledger.listSessions({ limit: 100 })).sessions)
      prompts += (await ledger.events(id)).filter(
        (e) => e.kind === "prompt",
      ).length;
    await ledger.close();
    expect(prompts).toBe(2);
  });
});
