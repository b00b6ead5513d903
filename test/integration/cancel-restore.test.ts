// Issue 15 item 1: a cancel wins at every point of a prompt's life, also while acphub is still
// restoring the session onto a new agent process (a slow session/resume), and also when it
// comes as $/cancel_request. The prompt ends `cancelled` and the agent never runs it.
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  INIT,
  editorTracker,
  mockConfig,
  onlyProtocolOnStdout,
  afterKill,
} from "../helpers/editor.js";
import { connectMock, steps, tempDir } from "../helpers/mock.js";
import { Gateway } from "../../src/engine/gateway.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";

const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const ran = steps({ text: "the turn ran" });
const prompt = (sessionId: string) => ({
  sessionId,
  prompt: [{ type: "text", text: ran }],
});

// A session recorded by one acphub (killed -9), and a second acphub whose agent resumes it slowly.
async function restoringEditor(resumeDelayMs = 1500) {
  const home = tempDir();
  mockConfig(home, [
    ...[
      "--session-capabilities",
      "resume",
      "--resume-delay-ms",
      String(resumeDelayMs),
    ],
    ...["--sessions-file", join(home, "mock-sessions.json")],
  ]);
  return afterKill((e) => editors.track(e), home);
}

const ranText = (e: { updates: () => unknown[] }) =>
  JSON.stringify(e.updates()).includes("the turn ran");

it("session/cancel sent while the session is being resumed ends the prompt cancelled", async () => {
  const { second, sessionId } = await restoringEditor();
  const pending = second.agent.request<{ stopReason: string }>(
    "session/prompt",
    prompt(sessionId),
  );
  await second.agent.notify("session/cancel", { sessionId });
  expect((await pending).stopReason).toBe("cancelled");
  expect(ranText(second)).toBe(false);
  // The session is usable afterwards.
  const next = await second.agent.request<{ stopReason: string }>(
    "session/prompt",
    prompt(sessionId),
  );
  expect(next.stopReason).toBe("end_turn");
  expect(ranText(second)).toBe(true);
});

it("$/cancel_request sent while the session is being resumed ends the prompt cancelled", async () => {
  const { second, sessionId } = await restoringEditor();
  const controller = new AbortController();
  const pending = second.agent.request<{ stopReason: string }>(
    "session/prompt",
    prompt(sessionId),
    { cancellationSignal: controller.signal },
  );
  controller.abort();
  expect((await pending).stopReason).toBe("cancelled");
  expect(ranText(second)).toBe(false);
});

it("a prompt whose signal is already aborted ends cancelled and never reaches the agent", async () => {
  const home = tempDir();
  const seen: string[] = [];
  const gateway = new Gateway({
    agentName: "mock",
    ledger: new SqliteLedger(join(home, "ledger.db")),
    connect: () => connectMock(),
  });
  gateway.attachEditor({
    notify: (_method, params) => (
      seen.push(JSON.stringify(params)),
      Promise.resolve()
    ),
    request: () => Promise.reject(new Error("no requests expected")),
  });
  try {
    await gateway.initialize(INIT);
    const { sessionId } = await gateway.newSession({
      cwd: home,
      mcpServers: [],
    });
    const result = await gateway.prompt(
      prompt(String(sessionId)),
      AbortSignal.abort(),
    );
    expect(result).toEqual({ stopReason: "cancelled" });
    expect(seen.join()).not.toContain("the turn ran");
  } finally {
    await gateway.close();
  }
});

// CI caught this one: a session/cancel that arrives while the prompt's session record is still
// being read (a slow ledger) was lost, and the prompt ran to end_turn.
it("a cancel that arrives while the prompt's record is read still cancels it", async () => {
  const home = tempDir();
  const ledger = new SqliteLedger(join(home, "ledger.db"));
  const gateway = new Gateway({
    agentName: "mock",
    ledger,
    connect: () => connectMock(),
  });
  gateway.attachEditor({
    notify: () => Promise.resolve(),
    request: () => Promise.reject(new Error("no requests expected")),
  });
  try {
    await gateway.initialize(INIT);
    const { sessionId } = await gateway.newSession({
      cwd: home,
      mcpServers: [],
    });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const read = ledger.getSession.bind(ledger);
    ledger.getSession = async (id) => (await held, read(id));
    const result = gateway.prompt(
      prompt(String(sessionId)),
      new AbortController().signal,
    );
    gateway.cancel({ sessionId });
    release();
    expect(await result).toEqual({ stopReason: "cancelled" });
  } finally {
    await gateway.close();
  }
});

// Issue 15 item 5: the stdio server hands the request's signal to the gateway.
it("$/cancel_request ends a session/resume the agent never answers", async () => {
  const { second, sessionId } = await restoringEditor(600_000);
  const controller = new AbortController();
  const resumed = second.agent.request(
    "session/resume",
    { sessionId, cwd: tempDir(), mcpServers: [] },
    { cancellationSignal: controller.signal },
  );
  controller.abort();
  await expect(resumed).rejects.toMatchObject({ code: -32800 });
});
