// `acphub chat … | head -1`: a reader that goes away cancels the running turn and shuts the
// agent down before acphub exits 141 — the agent is not left for the next command to reap.
import { describe, expect, it } from "vitest";
import { lastSessionEvents, runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

describe("acphub chat with its stdout closed", () => {
  it("cancels the turn, records it, and exits 141 quietly", async () => {
    const home = tempDir("acphub-home-");
    // The closed pipe shows at the next write ("more"), as for `run`.
    const prompt = steps(
      { text: "first\n" },
      { sleep: 200 },
      { text: "more\n" },
      { sleep: 20_000 },
    );
    let seen = "";
    const r = await runCli(["chat"], {
      home,
      input: `${prompt}\n`,
      onSpawn: (child) =>
        child.stdout!.on("data", (d: Buffer) => {
          seen += d.toString();
          if (seen.includes("first")) child.stdout!.destroy();
        }),
    });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.code).toBe(141);
    const { events, listStderr } = await lastSessionEvents(home);
    expect(events.at(-1)).toMatchObject({
      kind: "turn_end",
      payload: { stopReason: "cancelled" },
    });
    expect(listStderr).not.toMatch(/orphan/);
  });
});
