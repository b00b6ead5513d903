// Issue 16, item 4: `--timeout` bounds the whole command — the agent's start-up, the turn and
// the agent's grace to honour the cancel — and a timeout is exit 3.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";

// Configured limits far beyond the timeout: only --timeout can end these commands in time.
function homeWithLongLimits(): string {
  const home = tempDir("acphub-home-");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      agents: {
        mute: {
          command: process.execPath,
          args: [CLI, "mock-agent", "--no-init-answer"],
        },
      },
      timeouts: { initializeMs: 120_000, cancelGraceMs: 120_000 },
    }),
  );
  return home;
}

describe("--timeout", () => {
  it("bounds an agent that never answers initialize: exit 3, and the agent is gone", async () => {
    const home = homeWithLongLimits();
    const r = await runCli(["run", "--agent", "mute", "--timeout", "1", "hi"], {
      home,
    });
    expect(r.stderr).toContain(
      "acphub: the agent did not start within 1 s (--timeout); it was stopped",
    );
    expect(r.code).toBe(3);
    const next = await runCli(["sessions", "list"], { home });
    expect(next.stderr).not.toMatch(/orphan/);
  });

  it("bounds a turn whose agent ignores the cancel: exit 3, not the configured grace", async () => {
    const home = homeWithLongLimits();
    const r = await runCli(
      // 10 s: the turn, not the start, must be what runs out (a loaded machine took over 2 s
      // to start the agent, and the start's own message came instead).
      [
        "run",
        "--json",
        "--timeout",
        "10",
        steps({ text: "x" }, { hang: true }),
      ],
      { home },
    );
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "TIMEOUT",
      message:
        "the turn did not finish within 10 s (--timeout); it was cancelled",
    });
    expect(r.code).toBe(3);
    const next = await runCli(["sessions", "list"], { home });
    expect(next.stderr).not.toMatch(/orphan/);
  });

  it("a turn that honours the cancel ends with its result line, then the timeout", async () => {
    const r = await runCli([
      "run",
      "--json",
      "--timeout",
      "10",
      steps({ sleep: 60_000 }),
    ]);
    const lines = jsonLines(r.stdout);
    expect(lines.at(-2)).toMatchObject({
      type: "result",
      stopReason: "cancelled",
    });
    expect(lines.at(-1)).toMatchObject({ type: "error", code: "TIMEOUT" });
    expect(r.code).toBe(3);
  });
});
