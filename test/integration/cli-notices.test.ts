// Issue 16, item 5: acphub's own voice stays apart from the agent's — on stderr in plain mode,
// its own event type in --json — so that what a script captures is what the agent said.
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

const RESTORED = "mock could not resume or load this session";

// A home with one recorded session (the mock agent cannot resume it: acphub primes a new one).
async function recordedSession(): Promise<{ home: string; id: string }> {
  const home = tempDir("acphub-home-");
  const first = await runCli(["run", "--json", "remember kiwi"], { home });
  return { home, id: String(jsonLines(first.stdout).at(-1)!["sessionId"]) };
}

describe("acphub's notices", () => {
  it("run --session: the restore notice is on stderr, not in the agent's reply", async () => {
    const { home, id } = await recordedSession();
    const r = await runCli(["run", "--session", id, "the word?"], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(RESTORED);
    expect(r.stdout).toMatch(/^mock agent received: /);
    expect(r.stderr).toMatch(
      new RegExp(`^acphub: ${RESTORED}; acphub started a new one`, "m"),
    );
    expect(r.stderr).not.toContain("with your next message");
  });

  it("run --json --session: a notice event, never an agent_message_chunk", async () => {
    const { home, id } = await recordedSession();
    const r = await runCli(["run", "--json", "--session", id, "the word?"], {
      home,
    });
    const lines = jsonLines(r.stdout);
    const notices = lines.filter((l) => l["type"] === "notice");
    expect(notices).toEqual([
      {
        type: "notice",
        sessionId: id,
        severity: "info",
        title: expect.stringContaining(RESTORED) as unknown,
      },
    ]);
    const chunks = lines.filter((l) => l["type"] === "session_update");
    expect(JSON.stringify(chunks)).not.toContain(RESTORED);
  });

  it("chat --session: the notice is a line of its own on stderr", async () => {
    const { home, id } = await recordedSession();
    const r = await runCli(["chat", "--session", id], { home, input: "" });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(RESTORED);
    expect(r.stderr).toMatch(new RegExp(`^acphub: ${RESTORED}`, "m"));
    // The replayed reply ends its line before the notice is said.
    expect(r.stdout).toMatch(/mock agent received: remember kiwi\n/);
  });
});
