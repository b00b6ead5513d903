// `acphub acp` when its SQLite ledger fails: a read-only state folder, a database another process
// holds locked, a full disk. Each is one clear error naming the file (at start: exit 2; in a
// session: the editor's session/prompt gets a JSON-RPC error); nothing already acknowledged is
// lost, and no update reaches the editor without being stored.
import Database from "better-sqlite3";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  INIT,
  editorTracker,
  mockConfig,
  onlyProtocolOnStdout,
  openSession,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const text = (t: string) => [{ type: "text", text: t }];

const kindOf = (u: Record<string, unknown>) =>
  (u["update"] as { sessionUpdate: string }).sessionUpdate;

// The agent's text chunks among `updates`, joined.
const textOf = (updates: Record<string, unknown>[]) =>
  updates
    .map((u) => {
      const update = u["update"] as {
        sessionUpdate: string;
        content?: { text?: string };
      };
      return update.sessionUpdate === "agent_message_chunk"
        ? (update.content?.text ?? "")
        : "";
    })
    .join("");

// The agent's text chunks an editor was sent, joined.
const said = (e: TestEditor, from = 0) => textOf(e.updates().slice(from));

// The updates that are not text chunks (which the ledger may store merged).
const notChunks = (updates: Record<string, unknown>[]) =>
  updates.filter((u) => !kindOf(u).endsWith("_chunk"));

// The text of a replayed user_message_chunk.
const userText = (u: Record<string, unknown>) => {
  const update = u["update"] as {
    sessionUpdate: string;
    content?: { text?: string };
  };
  return update.sessionUpdate === "user_message_chunk"
    ? update.content?.text
    : undefined;
};

// True when every update of `shown` is in `stored`, in the same order (others may be between).
function inOrderWithin(shown: unknown[], stored: unknown[]): boolean {
  let i = 0;
  for (const update of stored)
    if (i < shown.length && isDeepStrictEqual(update, shown[i])) i += 1;
  return i === shown.length;
}

// The session's history as another `acphub acp` on the same home replays it.
async function replayed(home: string, sessionId: string): Promise<string> {
  const e = editors.track(startEditor(home));
  await e.agent.request("initialize", INIT);
  await e.agent.request("session/load", {
    sessionId,
    cwd: home,
    mcpServers: [],
  });
  return said(e);
}

describe("acphub acp when the ledger fails", () => {
  it("a read-only state folder: exit 2, one line naming the ledger file", async () => {
    const home = tempDir();
    mockConfig(home);
    // Read-only even for root: the folder is mounted read-only around acphub (bubblewrap).
    const e = startEditor(home, {
      wrap: ["bwrap", "--dev-bind", "/", "/", "--ro-bind", home, home],
    });
    const code = await e.exited;
    expect(code).toBe(2);
    const lines = e.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^acphub: ledger ${join(home, "ledger.db")}: it cannot be opened`,
      ),
    );
    expect(e.stdout()).toBe("");
  });

  it("a database locked by another process: the prompt gets a JSON-RPC error naming the file; nothing acknowledged is lost", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = editors.track(startEditor(home));
    const sessionId = await openSession(e, home);
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "before the lock" })),
    });
    const other = new Database(join(home, "ledger.db"));
    other.exec("BEGIN EXCLUSIVE");
    const seen = e.updates().length;
    try {
      await expect(
        e.agent.request("session/prompt", {
          sessionId,
          prompt: text(steps({ text: "while locked" })),
        }),
      ).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining(
          `ledger ${join(home, "ledger.db")}: it is locked by another process`,
        ),
      });
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(said(e, seen)).not.toContain("while locked");
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "after the lock" })),
    });
    const history = await replayed(home, sessionId);
    expect(history).toContain("before the lock");
    expect(history).toContain("after the lock");
  });

  it("a full disk mid-turn: the prompt fails naming the file, and every update the editor saw is stored", async () => {
    const home = tempDir();
    const state = join(home, "state");
    mkdirSync(state);
    // The agent's second turn streams 1 MiB in 64 chunks, more than the state folder holds.
    const scenario = join(home, "turns.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        turns: [
          { steps: [{ text: "fits on the disk" }] },
          {
            steps: [
              { text: "z".repeat(1024 * 1024), chunks: 64 },
              { text: "END" },
            ],
          },
        ],
      }),
    );
    mockConfig(home, ["--scenario", scenario]);
    // The state folder is a 512 KiB file system of its own, inside acphub's mount namespace.
    const e = editors.track(
      startEditor(home, {
        env: { ACPHUB_HOME: state },
        args: ["--config", join(home, "config.json")],
        wrap: [
          ...["bwrap", "--dev-bind", "/", "/", "--die-with-parent"],
          ...["--size", String(512 * 1024), "--tmpfs", state],
        ],
      }),
    );
    const sessionId = await openSession(e, home);
    await e.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const seen = e.updates().length;
    await expect(
      e.agent.request("session/prompt", { sessionId, prompt: text("more") }),
    ).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        `ledger ${join(state, "ledger.db")}: the disk is full`,
      ),
    });
    const shown = e.updates();
    expect(said(e, seen)).not.toContain("END");
    // What the ledger kept, replayed by the same process. The guarantee is "shown ⊆ stored, in
    // order": an update reaches the editor only once stored, and none after the first failed
    // append. Appends after that one may still succeed (the agent's turn is being cancelled
    // meanwhile), so the ledger may hold more than was shown — never less. A reply's text chunks
    // may be stored merged (SQLite folds them so): their text is compared, joined.
    const before = shown.length;
    await e.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const history = e.updates().slice(before);
    expect(textOf(history)).toContain("fits on the disk");
    expect(inOrderWithin(notChunks(shown), notChunks(history))).toBe(true);
    expect(textOf(history).startsWith(textOf(shown))).toBe(true);
    // The failing turn as shown is exactly the start of the turn as stored (no gap before it).
    // It may be empty: a batch holding the first chunks can be the one the full disk refuses.
    const prompt = history.findIndex((u) => userText(u) === "more");
    expect(prompt).toBeGreaterThan(-1);
    const turn = textOf(shown.slice(seen));
    expect(textOf(history.slice(prompt + 1)).startsWith(turn)).toBe(true);
  });
});
