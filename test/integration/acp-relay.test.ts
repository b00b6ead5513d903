// `acphub acp` as a real subprocess, an SDK client as the editor, the mock agent behind it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
  type TestEditor,
  openSession,
} from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

let editor: TestEditor | undefined;
afterEach(async () => {
  if (editor) {
    expect(onlyProtocolOnStdout(editor.stdout())).toBe(true);
    editor.child.kill("SIGKILL");
    await editor.exited;
  }
  editor = undefined;
});

const text = (prompt: string) => [{ type: "text", text: prompt }];

describe("acphub acp relays faithfully", () => {
  it("a full turn: unknown variants, _meta at every level, extension traffic both ways", async () => {
    const home = tempDir();
    mockConfig(home);
    const asked: unknown[] = [];
    editor = startEditor(home, {
      onRequest: (method, params) => (
        asked.push({ method, params }),
        { echoed: params["n"] }
      ),
    });
    const init = await editor.agent.request("initialize", INIT);
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      },
    });
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    expect(sessionId).toMatch(/^hub-/);
    const future = {
      sessionUpdate: "future_variant",
      nested: { a: [1, { b: null }] },
      _meta: { "vendor/x": true },
    };
    const scenario = JSON.stringify({
      steps: [
        { text: "hello", _meta: { chunkMeta: 1 } },
        { update: future },
        {
          extRequest: {
            method: "_acphub.test/echo",
            params: { sessionId: "ignored-by-agent", n: 42 },
          },
        },
        {
          extNotification: { method: "_acphub.test/note", params: { k: "v" } },
        },
      ],
      _meta: { responseMeta: "kept" },
    });
    const response = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(scenario),
      _meta: { promptMeta: 1 },
    });
    expect(response).toEqual({
      stopReason: "end_turn",
      _meta: { responseMeta: "kept" },
    });
    const updates = editor.updates();
    expect(updates[0]).toEqual({
      sessionId,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "hello" },
      },
      _meta: { chunkMeta: 1 },
    });
    expect(updates[1]).toEqual({ sessionId, update: future });
    expect(asked).toEqual([
      {
        method: "_acphub.test/echo",
        params: { sessionId: "ignored-by-agent", n: 42 },
      },
    ]);
    expect(JSON.stringify(updates)).toContain('ext result: {\\"echoed\\":42}');
    expect(editor.notifications).toContainEqual({
      method: "_acphub.test/note",
      params: { k: "v" },
    });
  });

  it("forwards permission requests to the editor with acphub's session id, and the agent acts on the answer", async () => {
    const home = tempDir();
    mockConfig(home);
    const asked: Record<string, unknown>[] = [];
    editor = startEditor(home, {
      onRequest: (method, params) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId: "reject" } };
      },
    });
    const sessionId = await openSession(editor, home);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ permission: { title: "Delete it", kind: "delete" } }),
      ),
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId,
      toolCall: { title: "Delete it", kind: "delete" },
    });
    expect(JSON.stringify(editor.updates())).toContain(
      "permission denied (reject)",
    );
  });

  it("fs and terminal go to the editor when it advertised them, after acphub's own checks", async () => {
    const home = tempDir();
    // The workspace lies outside the state folder: nothing in it may be read (docs/policy.md).
    const ws = join(tempDir(), "ws");
    mkdirSync(ws);
    mockConfig(home);
    const seen: string[] = [];
    editor = startEditor(home, {
      onRequest: (method, params) => {
        seen.push(method);
        if (method === "session/request_permission")
          return { outcome: { outcome: "selected", optionId: "allow" } };
        if (method === "fs/read_text_file")
          return { content: `editor buffer of ${String(params["path"])}` };
        if (method === "terminal/create") return { terminalId: "ed-1" };
        if (method === "terminal/wait_for_exit")
          return { exitCode: 0, signal: null };
        if (method === "terminal/output")
          return { output: "from editor", truncated: false };
        return {};
      },
    });
    await editor.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
      },
    });
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: ws, mcpServers: [] },
    );
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps(
          {
            permission: {
              title: "Edit b.ts",
              kind: "edit",
              toolCall: { rawInput: { path: join(ws, "b.ts") } },
            },
          },
          {
            permission: {
              title: "Run make",
              kind: "execute",
              toolCall: { rawInput: { command: "make" } },
            },
          },
          { readFile: { path: join(ws, "a.ts") } },
          { readFile: { path: "/etc/passwd" } },
          { writeFile: { path: join(ws, "b.ts"), content: "x" } },
          { terminal: { command: "make" } },
        ),
      ),
    });
    expect(seen).toEqual([
      "session/request_permission",
      "session/request_permission",
      "fs/read_text_file",
      "fs/write_text_file",
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/output",
      "terminal/release",
    ]);
    const all = JSON.stringify(editor.updates());
    expect(all).toContain(`editor buffer of ${join(ws, "a.ts")}`);
    expect(all).toContain("is outside the session's allowed roots"); // never reached the editor
    expect(all).toContain("from editor");
  });

  it("without those capabilities acphub serves fs and terminals itself", async () => {
    const home = tempDir();
    // The workspace lies outside the state folder: nothing in it may be read (docs/policy.md).
    const ws = join(tempDir(), "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "on disk");
    mockConfig(home, [], { permissions: { mode: "approve-all" } });
    editor = startEditor(home);
    const sessionId = await openSession(editor, ws);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps(
          { readFile: { path: join(ws, "a.txt") } },
          { writeFile: { path: join(ws, "b.txt"), content: "written" } },
          { terminal: { command: "echo", args: ["local"] } },
        ),
      ),
    });
    const all = JSON.stringify(editor.updates());
    expect(all).toContain('read: \\"on disk\\"');
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("written");
    expect(all).toContain("local\\\\n");
  });
});
