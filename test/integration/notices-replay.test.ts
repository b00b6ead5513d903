// acphub's notices are part of the history: "acphub resumed this session on a new … process" is
// stored where it was shown, and a session/load after a restart shows the same transcript as was
// seen live — through `acphub acp` (as a `notice` to an editor that takes one, else as agent text
// on a line of its own) and through `acphub serve`.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import {
  hubFixture,
  INIT as HUB_INIT,
  openSession,
  startHub,
  until,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { interruptedNotice } from "../../src/hub/interrupted-turns.js";

const editors = editorTracker();
const fx = hubFixture();
const hubs: RunningHub[] = [];
afterEach(async () => {
  await editors.cleanup(() => undefined);
  await fx.cleanup();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

type Update = Record<string, unknown>;
const text = (t: string) => [{ type: "text", text: t }];
const RESUMED = "acphub resumed this session on a new mock process.";

// The transcript an editor shows: the user's own prompts left out (an editor shows those itself),
// sequence numbers left out, consecutive text chunks of one kind joined (the ledger merges them).
function transcript(updates: Update[]): string[] {
  const out: string[] = [];
  let last = "";
  for (const u of updates) {
    const update = u["update"] as Update & { content?: { text?: string } };
    if (update["sessionUpdate"] === "user_message_chunk") continue;
    const meta = JSON.parse(JSON.stringify(u["_meta"] ?? {})) as {
      acphub?: Update;
    };
    delete meta.acphub?.["seq"];
    const key = `${String(update["sessionUpdate"])} ${JSON.stringify(meta)}`;
    const chunk =
      String(update["sessionUpdate"]).endsWith("_chunk") &&
      update.content?.text !== undefined;
    if (chunk && key === last) out[out.length - 1] += update.content!.text!;
    else
      out.push(chunk ? `${key}: ${update.content!.text!}` : JSON.stringify(u));
    last = chunk ? key : "";
  }
  return out;
}

// The agent's text an editor was shown, joined.
const said = (updates: Update[]) =>
  updates
    .map((u) => u["update"] as Update & { content?: { text?: string } })
    .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
    .map((u) => u.content?.text ?? "")
    .join("");

describe.each([
  ["as agent text on its own line", {}],
  ["as a notice", { session: { notices: {} } }],
])("acphub acp shows a restore notice %s", (_, caps) => {
  it("live and, after a restart, replayed at its place", async () => {
    const home = tempDir();
    mockConfig(home, [
      ...["--session-capabilities", "resume"],
      ...["--sessions-file", join(home, "mock-sessions.json")],
    ]);
    const init = { protocolVersion: 1, clientCapabilities: caps };
    const start = async (): Promise<TestEditor> => {
      const e = editors.track(startEditor(home));
      await e.agent.request("initialize", init);
      return e;
    };
    const first = await start();
    const { sessionId } = await first.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    await first.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "first answer" })),
    });
    first.child.kill("SIGKILL");
    await first.exited;

    const load = { sessionId, cwd: home, mcpServers: [] };
    const second = await start();
    await second.agent.request("session/load", load);
    await second.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "second answer" })),
    });
    const live = second.updates();
    if ("session" in caps)
      expect(live.map((u) => u["update"])).toContainEqual({
        sessionUpdate: "notice",
        severity: "info",
        title: RESUMED,
      });
    else
      expect(said(live)).toMatch(
        new RegExp(`first answer\n\\[acphub\\] ${RESUMED}\n.*second answer`),
      );

    const third = await start();
    await third.agent.request("session/load", load);
    // The replay is what was seen live, notices at their place. The third process restores
    // the agent too, and under load its own notice of that may already follow the replay.
    const replayed = transcript(third.updates());
    const seen = transcript(live);
    expect(replayed.slice(0, seen.length)).toEqual(seen);
    const extra = replayed.slice(seen.length);
    expect(extra.every((line) => line.includes(RESUMED))).toBe(true);
    expect(replayed.length - seen.length).toBeLessThanOrEqual(1);
  }, 120_000);
});

describe("acphub serve", () => {
  it("a restore notice after a hub restart is replayed where its clients saw it", async () => {
    const { h, home } = await fx.start({}, [
      "--session-capabilities",
      "resume",
    ]);
    const c1 = fx.connect(h, "ws");
    const sessionId = await openSession(c1, home);
    await c1.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "first answer" })),
    });
    h.child.kill("SIGKILL");
    await h.exited;

    const h2 = await startHub(home);
    hubs.push(h2);
    const load = { sessionId, cwd: home, mcpServers: [] };
    const c2 = fx.connect(h2, "ws");
    await c2.agent.request("initialize", HUB_INIT);
    await c2.agent.request("session/load", load);
    await c2.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "second answer" })),
    });
    const live = c2.updates(sessionId);
    expect(said(live)).toMatch(
      new RegExp(`first answer\n\\[acphub\\] ${RESUMED}\n.*second answer`),
    );

    const c3 = fx.connect(h2, "ws");
    await c3.agent.request("initialize", HUB_INIT);
    await c3.agent.request("session/load", load);
    expect(transcript(c3.updates(sessionId))).toEqual(transcript(live));
  }, 120_000);

  it("a turn a hub restart cut off ends with a notice stored as one, not as agent text", async () => {
    // The prompt sent again (a reconnecting client) ends the cut-off turn; a client loading the
    // session afterwards is replayed the notice. Both see acphub's notice (marked, on a line of
    // its own), never the agent's words.
    const { sessionId, c2, c3, answer } = await cutOffThenResent(
      "started ",
      1,
      "cut-off",
    );
    expect(answer).toMatchObject({ stopReason: "cancelled" });
    const stopped = [c2, c3].flatMap((c) =>
      c
        .updates(sessionId)
        .filter((u) => JSON.stringify(u).includes("outcome unknown")),
    );
    const marked = expect.objectContaining({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: `\n[acphub] ${interruptedNotice(undefined)}\n`,
        },
      },
      _meta: {
        acphub: expect.objectContaining({ notice: { severity: "warning" } }),
      },
    });
    expect(stopped).toEqual([marked, marked]);
  }, 120_000);
});

describe("acphub serve: a cut-off turn's chunks", () => {
  it("are merged when the turn is ended after a restart, as a finished turn's are", async () => {
    const { sessionId, c1, c3 } = await cutOffThenResent(
      "one two three four ",
      4,
      "merged",
    );
    const live = c1
      .updates(sessionId)
      .filter(
        (u) =>
          (u["update"] as Update)["sessionUpdate"] === "agent_message_chunk",
      );
    expect(live).toHaveLength(4);
    // The agent's four chunks are replayed as one (acphub's notices are updates of their own).
    const replayed = c3
      .updates(sessionId)
      .filter((u) => !JSON.stringify(u["_meta"] ?? {}).includes('"notice"'))
      .map((u) => u["update"] as Update & { content?: { text?: string } })
      .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
      .map((u) => u.content?.text);
    expect(replayed).toEqual(["one two three four "]);
  }, 120_000);
});

// A turn killed -9 once its client saw `reply` (in `chunks` updates), then, on a restarted hub,
// the same prompt sent again by a client that loaded the session (c2: it ends the cut-off turn;
// `answer`) and a client that loaded the session after that (c3).
async function cutOffThenResent(reply: string, chunks: number, key: string) {
  const { h, home } = await fx.start();
  const c1 = fx.connect(h, "ws");
  const sessionId = await openSession(c1, home);
  const params = {
    sessionId,
    prompt: text(steps({ text: reply, chunks }, { sleep: 60_000 })),
    _meta: { acphub: { idempotencyKey: key } },
  };
  void c1.agent.request("session/prompt", params).catch(() => undefined);
  await until(() => said(c1.updates(sessionId)) === reply);
  h.child.kill("SIGKILL");
  await h.exited;
  const h2 = await startHub(home);
  hubs.push(h2);
  const loaded = async () => {
    const c = fx.connect(h2, "ws");
    await c.agent.request("initialize", HUB_INIT);
    await c.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    return c;
  };
  const c2 = await loaded();
  const answer = await c2.agent.request("session/prompt", params);
  return { sessionId, c1, c2, c3: await loaded(), answer };
}
