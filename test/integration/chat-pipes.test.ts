// `acphub chat … | head -1`: a reader that goes away cancels the running turn and shuts the
// agent down before acphub exits 141 — the agent is not left for the next command to reap.
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

describe("acphub chat with its stdout closed", () => {
  it("cancels the turn, records it, and exits 141 quietly", async () => {
    const home = tempDir("acphub-home-");
    const prompt = steps(
      { text: "first\n" },
      { sleep: 200 },
      { text: "second\n" },
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
    const list = await runCli(["sessions", "list", "--json"], { home });
    const [session] = JSON.parse(list.stdout) as { id: string }[];
    const show = await runCli(["sessions", "show", session!.id, "--json"], {
      home,
    });
    const { events } = jsonLines(show.stdout)[0] as {
      events: { kind: string; payload: Record<string, unknown> }[];
    };
    expect(events.at(-1)).toMatchObject({
      kind: "turn_end",
      payload: { stopReason: "cancelled" },
    });
    expect(list.stderr).not.toMatch(/orphan/);
  });
});
