// Session methods are used only when the agent advertised them; auth and bridged requests.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
import { collect, connectMock, steps } from "../helpers/mock.js";

let agent: AgentConnection | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const cwd = process.cwd();

describe("capabilities", () => {
  it("methods the agent did not advertise fail with UNSUPPORTED naming the capability", async () => {
    agent = await connectMock();
    await expect(agent.listSessions()).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    await expect(agent.listSessions()).rejects.toThrow(
      /session\/list \(it did not advertise sessionCapabilities.list\)/,
    );
    await expect(agent.loadSession("x", { cwd })).rejects.toThrow(
      /did not advertise loadSession/,
    );
    await expect(agent.resumeSession("x", { cwd })).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    await expect(agent.closeSession("x")).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    await expect(agent.deleteSession("x")).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    const session = await agent.newSession({ cwd });
    await expect(session.setMode("code")).rejects.toThrow(
      /session\/set_mode \(it did not advertise modes\)/,
    );
    await expect(session.setConfigOption("model", "x")).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
  });

  it("list, load (with replay), resume, close and delete work when advertised", async () => {
    agent = await connectMock([
      "--load-session",
      "--session-capabilities",
      "list,resume,close,delete",
    ]);
    const session = await agent.newSession({ cwd });
    await session.chat("remember me");
    const listed = await agent.listSessions({ cwd });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([session.id]);
    const { replay } = await agent.loadSession(session.id, { cwd });
    const kinds = replay.map((e) =>
      e.type === "session_update" ? e.update.sessionUpdate : e.type,
    );
    expect(kinds[0]).toBe("user_message_chunk");
    expect(JSON.stringify(replay)).toContain("remember me");
    const resumed = await agent.resumeSession(session.id, { cwd });
    expect((await resumed.chat("still here")).text).toContain("still here");
    await agent.closeSession(session.id);
    await agent.deleteSession(session.id);
    expect((await agent.listSessions()).sessions).toEqual([]);
    await expect(
      agent.resumeSession(session.id, { cwd }),
    ).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  it("set mode and set config option when the session offered them", async () => {
    agent = await connectMock(["--modes", "--config-options"]);
    const session = await agent.newSession({ cwd });
    expect(session.state.modes?.currentModeId).toBe("ask");
    const modeEvents: unknown[] = [];
    session.onEvent((e) => modeEvents.push(e));
    await session.setMode("code");
    expect(session.state.modes?.currentModeId).toBe("code");
    expect(JSON.stringify(modeEvents)).toContain("current_mode_update");
    await session.setConfigOption("model", "mock-large");
    expect(JSON.stringify(session.state.configOptions)).toContain(
      '"currentValue":"mock-large"',
    );
  });
});

describe("authentication", () => {
  it("session/new answering -32000 is AUTH_REQUIRED with the agent's auth methods; authenticate fixes it", async () => {
    agent = await connectMock(["--auth-required"]);
    const error = await agent.newSession({ cwd }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "AUTH_REQUIRED",
      details: { authMethods: [expect.objectContaining({ id: "mock-login" })] },
    });
    await agent.authenticate("mock-login");
    expect((await agent.newSession({ cwd })).id).toMatch(/^mock-/);
  });
});

describe("bridged requests", () => {
  it("fs requests go to the host's handlers and appear as events; capabilities follow the host", async () => {
    const reads: unknown[] = [];
    agent = await connectMock([], {
      host: {
        bridge: {
          "fs/read_text_file": async (params: never) => (
            reads.push(params),
            { content: "file body" }
          ),
        },
      },
    });
    const session = await agent.newSession({ cwd });
    const events = await collect(
      session.prompt(
        steps(
          { readFile: { path: "/w/a.txt", line: 1, limit: 2000 } },
          { writeFile: { path: "/w/b", content: "x" } },
        ),
      ),
    );
    expect(reads).toEqual([
      { sessionId: session.id, path: "/w/a.txt", line: 1, limit: 2000 },
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "client_request",
        method: "fs/read_text_file",
        ok: true,
      }),
    );
    const text = JSON.stringify(events);
    expect(text).toContain('read: \\"file body\\"');
    expect(text).toContain("fs/write_text_file failed: -32601");
  });
});
