// Issue 16, item 1: a reader that goes away (`| head -1`) ends the output quietly: exit 141,
// no stack trace, and a running turn is cancelled rather than left behind.
import { describe, expect, it } from "vitest";
import { lastSessionEvents, runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

const STACK = /EPIPE|\n\s+at /;

// Runs the CLI with its stdout closed at once, or after the first chunk (like `head -1`).
function withClosedStdout(args: string[], home: string, afterFirst = false) {
  return runCli(args, {
    home,
    onSpawn: (child) => {
      if (afterFirst) child.stdout!.once("data", () => child.stdout!.destroy());
      else child.stdout!.destroy();
    },
  });
}

describe("closing the pipe early", () => {
  it("run … | head -1 cancels the turn and exits 141 without a stack trace", async () => {
    const home = tempDir("acphub-home-");
    const prompt = steps(
      { text: "first\n" },
      { sleep: 200 },
      { text: "second\n" },
      { sleep: 20_000 },
    );
    const r = await withClosedStdout(["run", prompt], home, true);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(141);
    const { events, listStderr } = await lastSessionEvents(home);
    expect(events.at(-1)).toMatchObject({
      kind: "turn_end",
      payload: { stopReason: "cancelled" },
    });
    // The agent went with it: nothing was left for the next command to reap.
    expect(listStderr).not.toMatch(/orphan/);
  });

  it("sessions list and sessions show with a closed pipe exit 141 quietly", async () => {
    const home = tempDir("acphub-home-");
    expect((await runCli(["run", "hello"], { home })).code).toBe(0);
    const list = await runCli(["sessions", "list", "--json"], { home });
    const [session] = JSON.parse(list.stdout) as { id: string }[];
    for (const args of [
      ["sessions", "list"],
      ["sessions", "show", session!.id],
    ]) {
      const r = await withClosedStdout(args, home);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(141);
    }
  });
});
