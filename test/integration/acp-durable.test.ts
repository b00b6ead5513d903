// Sessions survive kill -9 of acphub and crashes of the agent: listed, replayed in order, and
// restored onto a new agent process by resume, load or transcript priming.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
  openSession,
  editorTracker,
  type TestEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

function editor(
  home: string,
  onRequest?: (method: string, params: Record<string, unknown>) => unknown,
) {
  const e = startEditor(home, {
    onRequest:
      onRequest ??
      (() => ({ outcome: { outcome: "selected", optionId: "allow" } })),
  });
  return editors.track(e);
}

const text = (t: string) => [{ type: "text", text: t }];
const turn1 = steps(
  { text: "first answer", chunks: 3 },
  {
    toolCall: {
      toolCallId: "t1",
      title: "Look",
      kind: "read",
      status: "completed",
    },
  },
  { update: { sessionUpdate: "future_variant", x: 1 } },
);
const turn2 = steps({ thought: "hmm" }, { text: "second answer" });

async function sessionWithHistory(e: TestEditor, cwd: string) {
  await e.agent.request("initialize", INIT);
  const { sessionId } = await e.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd, mcpServers: [] },
  );
  await e.agent.request("session/prompt", { sessionId, prompt: text(turn1) });
  await e.agent.request("session/prompt", { sessionId, prompt: text(turn2) });
  return sessionId;
}

type Update = Record<string, unknown>;

// The history as an editor shows it: consecutive text chunks that differ only in their text are
// one message (the ledger merges them when a turn ends).
function visible(updates: Update[]): Update[] {
  const key = (u: Update) => {
    const { update } = u as { update: Update & { content?: Update } };
    if (!String(update.sessionUpdate).endsWith("_chunk")) return undefined;
    if (update.content?.["type"] !== "text") return undefined;
    return JSON.stringify({
      ...u,
      update: { ...update, content: { ...update.content, text: "" } },
    });
  };
  const out: Update[] = [];
  let last: string | undefined;
  for (const u of updates) {
    const k = key(u);
    const prev = out.at(-1) as
      { update: { content: { text: string } } } | undefined;
    if (k !== undefined && k === last && prev) {
      const text = (u as { update: { content: { text: string } } }).update
        .content.text;
      out[out.length - 1] = {
        ...prev,
        update: {
          ...prev.update,
          content: {
            ...prev.update.content,
            text: prev.update.content.text + text,
          },
        },
      };
    } else out.push(u);
    last = k;
  }
  return out;
}

// Waits for the notice of the restoration that session/load started (it does not wait for it).
async function restoreNotice(e: TestEditor, words: string): Promise<void> {
  expect(
    await waitFor(() => JSON.stringify(e.updates().at(-1)).includes(words)),
  ).toBe(true);
}

// What a replay must contain: each prompt as a user chunk, then what the editor saw.
function expectedReplay(sessionId: string, seen: Record<string, unknown>[]) {
  const user = (t: string) => ({
    sessionId,
    update: {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: t },
    },
  });
  const firstTurn = seen.filter(
    (u) =>
      !JSON.stringify(u).includes("hmm") &&
      !JSON.stringify(u).includes("second answer"),
  );
  const secondTurn = seen.slice(firstTurn.length);
  return [user(turn1), ...firstTurn, user(turn2), ...secondTurn];
}

describe("after kill -9 of acphub acp", () => {
  it("lists the session and replays every update the editor had received, in order; then primes a new agent session", async () => {
    const home = tempDir();
    mockConfig(home);
    const first = editor(home);
    const sessionId = await sessionWithHistory(first, home);
    const seen = first.updates();
    first.child.kill("SIGKILL");
    await first.exited;

    const second = editor(home);
    await second.agent.request("initialize", INIT);
    const list = await second.agent.request<{
      sessions: { sessionId: string; title: string; cwd: string }[];
    }>("session/list", { cwd: home });
    expect(list.sessions).toEqual([
      expect.objectContaining({
        sessionId,
        cwd: home,
        title: expect.stringContaining('{"steps"'),
      }),
    ]);
    await second.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    // The mock cannot load or resume: the editor is told, and the next prompt carries the transcript.
    await restoreNotice(second, "gives it the conversation so far");
    const replay = second.updates();
    expect(visible(replay.slice(0, -1))).toEqual(
      visible(expectedReplay(sessionId, seen)),
    );
    await second.agent.request("session/prompt", {
      sessionId,
      prompt: text("and now?"),
    });
    const reply = JSON.stringify(second.updates().slice(replay.length));
    expect(reply).toContain("This session was restored");
    expect(reply).toContain("first answer");
    expect(reply).toContain("and now?");
  });

  it("resumes on an agent that supports resume, without replay from the agent", async () => {
    const home = tempDir();
    mockConfig(home, [
      "--session-capabilities",
      "resume",
      "--sessions-file",
      join(home, "mock-sessions.json"),
    ]);
    const first = editor(home);
    const sessionId = await sessionWithHistory(first, home);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = editor(home);
    await second.agent.request("initialize", INIT);
    await second.agent.request("session/resume", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    expect(JSON.stringify(second.updates())).toContain(
      "acphub resumed this session",
    );
    expect(second.updates()).toHaveLength(1);
  });

  it("loads on an agent that supports load, swallowing the agent's own replay", async () => {
    const home = tempDir();
    mockConfig(home, [
      "--load-session",
      "--sessions-file",
      join(home, "mock-sessions.json"),
    ]);
    const first = editor(home);
    const sessionId = await sessionWithHistory(first, home);
    const seen = first.updates();
    first.child.kill("SIGKILL");
    await first.exited;
    const second = editor(home, undefined);
    second.notifications.length = 0;
    await second.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { session: { notices: {} } },
    });
    await second.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    await restoreNotice(second, "acphub reloaded this session");
    const updates = second.updates();
    expect(visible(updates.slice(0, -1))).toEqual(
      visible(expectedReplay(sessionId, seen)),
    );
    expect(updates.at(-1)).toEqual({
      sessionId,
      update: {
        sessionUpdate: "notice",
        severity: "info",
        title: "acphub reloaded this session into a new mock process.",
      },
    });
  });
});

describe("after the agent crashes mid-turn", () => {
  it("the prompt fails saying so, the ledger keeps everything, and the next prompt restores the session", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = editor(home);
    const sessionId = await openSession(e, home);
    const crash = e.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "partial" }, { stderr: "fatal: boom" }, { exit: 3 }),
      ),
    });
    await expect(crash).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/exited with code 3.*fatal: boom/s),
    });
    const seen = e.updates();
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: text("are you back?"),
    });
    const after = JSON.stringify(e.updates().slice(seen.length));
    expect(after).toContain("gives it the conversation so far");
    expect(after).toContain("partial");
    expect(after).toContain("are you back?");
    const replayer = editor(home);
    await replayer.agent.request("initialize", INIT);
    await replayer.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    expect(JSON.stringify(replayer.updates())).toContain("partial");
  });
});

describe("ledger caps", () => {
  it("trims the oldest events past maxEventsPerSession and says the replay is incomplete", async () => {
    const home = tempDir();
    mockConfig(home, [], { ledger: { maxEventsPerSession: 10 } });
    const e = editor(home);
    const sessionId = await openSession(e, home);
    await e.agent.request("session/prompt", {
      sessionId,
      // Text and thought in turn: no two neighbours merge, so 30 events are stored.
      prompt: text(
        steps(
          ...Array.from({ length: 30 }, (_, i) =>
            i % 2 ? { thought: `h${i}` } : { text: `t${i}` },
          ),
        ),
      ),
    });
    const r = editor(home);
    await r.agent.request("initialize", INIT);
    await r.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const replay = r.updates();
    expect(JSON.stringify(replay[0])).toContain(
      "older history of this session was trimmed",
    );
    const chunks = replay.filter(
      (u) =>
        JSON.stringify(u).includes("agent_message_chunk") &&
        !JSON.stringify(u).includes("[acphub]"),
    );
    expect(chunks.length).toBeLessThanOrEqual(10);
    // The newest survive, the oldest are gone.
    expect(JSON.stringify(chunks.at(-1))).toContain('"text":"t28"');
    expect(JSON.stringify(chunks)).not.toContain('"text":"t0"');
  });
});
