// `acphub run --hub` when the hub refuses a prompt for a spent budget: the same exit code (8)
// and the same one line as a local `run`, the hub's error reaching the CLI through the shim.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { startHub, type RunningHub } from "../helpers/hub.js";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";

const hubs: RunningHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) {
    h.child.kill();
    await h.exited;
  }
});

// A turn whose prompt answer reports `tokens` tokens.
const turnWith = (tokens: number) =>
  JSON.stringify({
    steps: [{ text: "ok" }],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });

describe("acphub run --hub: a spent budget", { timeout: 90_000 }, () => {
  it("exits 8 with the hub's budget line", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { mock: { tokens: 100 } } } },
    });
    const hub = await startHub(home);
    hubs.push(hub);
    const elsewhere = tempDir();
    const run = (prompt: string, more: string[] = []) =>
      runCli(
        [
          "run",
          ...more,
          "--hub",
          hub.url,
          "--token-file",
          `${home}/serve-token`,
          prompt,
        ],
        { home: elsewhere },
      );
    const first = await run(turnWith(120));
    expect(first.code).toBe(0);
    const refused = await run(turnWith(1));
    expect(refused.stderr).toMatch(
      /^acphub: the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent: 120 of 100 tokens used; it resets at \d{4}-\d\d-\d\d 00:00 UTC \(in .+\)\n$/,
    );
    expect(refused.code).toBe(8);
    const json = await run(turnWith(1), ["--json"]);
    expect(json.code).toBe(8);
    expect(json.stdout).toContain('"code":"BUDGET_EXCEEDED"');
  });
});
