// One session id everywhere: `run --hub` and `chat --hub` show and take the hub's own session ids
// (the ones its page and `session/list` show), record nothing twice, refuse an id the hub does
// not know (exit 4, no new session), and say at once that a hub is unreachable (exit 3).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { startHub, type RunningHub } from "../helpers/hub.js";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";

const hubs: RunningHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

// The hub's sessions, as its own ledger lists them.
async function hubSessions(home: string): Promise<{ id: string }[]> {
  const r = await runCli(["sessions", "list", "--json"], { home });
  return JSON.parse(r.stdout) as { id: string }[];
}

describe("the CLI with --hub uses the hub's session ids", () => {
  it("run --hub prints the hub's id and continues it with --session; an unknown id is exit 4", async () => {
    const home = tempDir();
    mockConfig(home);
    const h = await startHub(home, ["--port", "0"]);
    hubs.push(h);
    const hub = ["--hub", h.url, "--token-file", join(home, "serve-token")];
    const elsewhere = tempDir();
    const first = await runCli(["run", ...hub, "--json", "first words"], {
      home: elsewhere,
    });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const id = String(jsonLines(first.stdout)[0]!["sessionId"]);
    expect((await hubSessions(home)).map((s) => s.id)).toEqual([id]);
    const listed = await runCli(["sessions", "list", ...hub, "--json"], {
      home: elsewhere,
    });
    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as { sessionId: string }[]).map(
        (s) => s.sessionId,
      ),
    ).toEqual([id]);

    const second = await runCli(
      ["run", ...hub, "--session", id, "second words"],
      { home: elsewhere },
    );
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("mock agent received: second words");
    const shown = await runCli(["sessions", "show", id], { home });
    expect(shown.stdout).toContain("first words");
    expect(shown.stdout).toContain("second words");
    expect(shown.stdout).not.toContain("This session was restored");

    // With the hub's own home (the usual case on one machine), nothing is recorded twice.
    const same = await runCli(["run", ...hub, "--session", id, "third"], {
      home,
    });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("mock agent received: third");

    const unknown = await runCli(
      ["run", ...hub, "--session", "hub-unknown", "lost words"],
      { home: elsewhere },
    );
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/the hub has no session hub-unknown/);
    expect((await hubSessions(home)).map((s) => s.id)).toEqual([id]);

    const chat = await runCli(["chat", ...hub], {
      home: elsewhere,
      input: "chatting\n",
    });
    expect(chat.code).toBe(0);
    const chatId = /session (\S+) ·/.exec(chat.stdout)?.[1];
    const ids = (await hubSessions(home)).map((s) => s.id);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(chatId);

    // chat --session continues the hub's session with its history shown first.
    const again = await runCli(["chat", ...hub, "--session", id], {
      home: elsewhere,
      input: "more chat\n",
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`session ${id} ·`);
    const history = again.stdout.indexOf("mock agent received: second words");
    expect(history).toBeGreaterThan(-1);
    expect(
      again.stdout.indexOf("mock agent received: more chat"),
    ).toBeGreaterThan(history);
    expect((await hubSessions(home)).map((s) => s.id)).toHaveLength(2);
  }, 300_000);

  it("run --hub to an unreachable hub says so and exits 3, without and with --timeout", async () => {
    const home = tempDir();
    const token = join(home, "token");
    writeFileSync(token, "t".repeat(43));
    for (const extra of [[], ["--timeout", "20"]]) {
      const r = await runCli(
        [
          "run",
          "--hub",
          "ws://127.0.0.1:1/acp",
          "--token-file",
          token,
          ...extra,
          "hi",
        ],
        { home, timeoutMs: 60_000 },
      );
      expect(r.stderr).toMatch(
        /the hub at ws:\/\/127\.0\.0\.1:1\/acp is unreachable: ECONNREFUSED/,
      );
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
    }
  }, 300_000);
});
