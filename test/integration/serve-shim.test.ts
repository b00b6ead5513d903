// `acphub acp --hub URL`: an editor (SDK client on stdio) reaches `acphub serve` through the
// shim, and the hub is killed with SIGKILL mid-turn and started again on the same port.
import { afterEach, describe, expect, it } from "vitest";
import {
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import { runCli } from "../helpers/cli.js";
import { startHub, until, type RunningHub } from "../helpers/hub.js";
import { collect, steps, tempDir } from "../helpers/mock.js";

// The built library (its shim launch points at dist/cli/main.js), imported at run time so that
// typechecking a fresh clone does not need dist/; its types come from the sources.
const { connectHub } = (await import(
  new URL("../../dist/index.js", import.meta.url).href
)) as typeof import("../../src/index.js");

const hubs: RunningHub[] = [];
const editors: TestEditor[] = [];
afterEach(async () => {
  for (const e of editors.splice(0)) {
    e.child.kill("SIGKILL");
    await e.exited;
  }
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

async function hubOn(home: string, port = "0") {
  const h = await startHub(home, ["--port", port]);
  hubs.push(h);
  return h;
}

const text = (t: string) => [{ type: "text", text: t }];
// Everything the editor was shown, agent chunks joined (the mock echoes in several chunks).
const said = (e: TestEditor) =>
  e
    .updates()
    .map((u) => {
      const update = u["update"] as { content?: { text?: string } };
      return update.content?.text ?? JSON.stringify(update);
    })
    .join("");

// A hub over the mock agent and an editor reaching it through the shim, initialized.
async function editorThroughShim() {
  const home = tempDir();
  mockConfig(home);
  const first = await hubOn(home);
  const editor = startEditor(home, { args: ["--hub", first.url] });
  editors.push(editor);
  await editor.agent.request("initialize", INIT);
  const open = () =>
    editor.agent.request<{ sessionId: string }>("session/new", {
      cwd: home,
      mcpServers: [],
    });
  return { home, first, editor, open };
}

describe("acphub acp --hub", () => {
  it("relays a turn, and survives kill -9 of the hub mid-turn: cancelled with a notice, then load and a new prompt work", async () => {
    const { home, first, editor, open } = await editorThroughShim();
    const { sessionId } = await open();
    const warmup = await editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text("hello through the shim") },
    );
    expect(warmup.stopReason).toBe("end_turn");
    expect(said(editor)).toContain(
      "mock agent received: hello through the shim",
    );

    const turn = editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "long turn begins" }, { sleep: 30_000 })),
      },
    );
    await until(() => said(editor).includes("long turn begins"));
    first.child.kill("SIGKILL");
    await first.exited;
    const port = new URL(first.url).port;
    await hubOn(home, port);
    expect((await turn).stopReason).toBe("cancelled");
    expect(said(editor)).toMatch(
      /interrupted: outcome unknown — acphub stopped \(killed or restarted\) before this turn ended/,
    );

    const before = editor.updates().length;
    await editor.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const replayed = editor
      .updates()
      .slice(before)
      .map((u) => JSON.stringify(u))
      .join("");
    expect(
      replayed,
      `${before} ${editor.updates().length} ${editor.stderr()}`,
    ).toContain("hello through the shim");
    expect(replayed).toContain("long turn begins");
    const shown = editor.updates().length;
    const after = await editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text("and after the restart") },
    );
    expect(after.stopReason).toBe("end_turn");
    const reply = editor
      .updates()
      .slice(shown)
      .filter(
        (u) =>
          (u["update"] as { sessionUpdate: string }).sessionUpdate ===
          "agent_message_chunk",
      )
      .map((u) => (u["update"] as { content: { text: string } }).content.text)
      .join("");
    expect(reply).toMatch(/^mock agent received: [\s\S]*and after the restart/);
    expect(onlyProtocolOnStdout(editor.stdout())).toBe(true);
  });

  it("a fork made through the shim is re-attached after the hub restarts, like a new session", async () => {
    const { home, first, editor, open } = await editorThroughShim();
    const { sessionId: parent } = await open();
    await editor.agent.request("session/prompt", {
      sessionId: parent,
      prompt: text("the parent's word is zebra"),
    });
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId: parent, cwd: home, mcpServers: [] },
    );
    first.child.kill("SIGKILL");
    await first.exited;
    await hubOn(home, new URL(first.url).port);
    // No session/load: the shim resumed the fork on the new hub by itself.
    const after = await editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text(steps({ history: true })) },
    );
    expect(after.stopReason).toBe("end_turn");
    expect(said(editor)).toContain("the parent's word is zebra");
  });

  it("a wrong token is a clear error, not a hang", async () => {
    const home = tempDir();
    mockConfig(home);
    const h = await hubOn(home);
    const editor = startEditor(home, {
      args: ["--hub", h.url],
      env: { ACPHUB_TOKEN: "w".repeat(43) },
    });
    editors.push(editor);
    const reply = await editor.agent
      .request("initialize", INIT)
      .catch((error: Error) => error);
    expect(String(reply)).toMatch(/refused the connection \(401\)/);
    expect(await editor.exited).not.toBe(0);
    expect(editor.stderr()).toMatch(/check the token/);
  });

  it("connectHub gives the library's session and prompt API over a running hub", async () => {
    const home = tempDir();
    mockConfig(home);
    const h = await hubOn(home);
    const hub = await connectHub(h.url, { token: h.token });
    try {
      expect(hub.initializeResponse?.agentInfo?.name).toBe("acphub");
      const session = await hub.newSession({ cwd: home });
      expect(session.id).toMatch(/^hub-/);
      const run = session.prompt(steps({ text: "over the hub", chunks: 3 }));
      const events = await collect(run);
      const text = events
        .filter((e) => e.type === "session_update")
        .map((e) => (e.update as { content?: { text?: string } }).content?.text)
        .join("");
      expect(text).toBe("over the hub");
      expect((await run.result).stopReason).toBe("end_turn");
    } finally {
      await hub.close();
    }
  });

  it("acphub run --hub uses the running hub: the turn is the hub's session", async () => {
    const home = tempDir();
    mockConfig(home);
    const h = await hubOn(home);
    const elsewhere = tempDir();
    const result = await runCli(
      ["run", "--hub", h.url, "--token-file", `${home}/serve-token`, "hi hub"],
      { home: elsewhere },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("mock agent received: hi hub");
    expect(result.code).toBe(0);
    const listed = await runCli(["sessions", "list", "--json"], { home });
    expect(listed.stdout).toContain("hi hub");
    const chat = await runCli(
      ["chat", "--hub", h.url, "--token-file", `${home}/serve-token`],
      { home: elsewhere, input: "chat through the hub\n" },
    );
    expect(chat.stdout).toContain("mock agent received: chat through the hub");
    expect(chat.code).toBe(0);
  });
});
