// Modes, models and config options kept true through `acphub acp`: what the editor set and
// what the agent reported is what session/load and session/resume answer, also from a new
// acphub process, and a fresh agent session is switched back to it.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { restart, text, turn, useEditors } from "../helpers/acp-session.js";
import { mockConfig, openSession, type TestEditor } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

const startEditor = useEditors();

interface State {
  modes?: { currentModeId: string };
  models?: { currentModelId: string };
  configOptions?: { id: string; currentValue: string }[];
}

// What the mock agent itself reports about the session (its `state` step). session/load answers
// before the agent is restored, so acphub's notice of how it was restored may come first.
async function agentState(e: TestEditor, sessionId: string): Promise<State> {
  const said = await turn(e, sessionId, steps({ state: true }));
  return JSON.parse(said.slice(said.indexOf("state: ") + 7)) as State;
}

const load = (e: TestEditor, sessionId: string, cwd: string) =>
  e.agent.request<State>("session/load", { sessionId, cwd, mcpServers: [] });

describe("session state kept true", () => {
  it("session/set_mode and set_config_option from the editor: load answers them after a restart, and the new agent session is switched back", async () => {
    const home = tempDir();
    mockConfig(home, ["--modes", "--config-options"]);
    const first = startEditor(home);
    const sessionId = await openSession(first, home);
    await first.agent.request("session/set_mode", {
      sessionId,
      modeId: "code",
    });
    await first.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "mock-large",
    });
    const resumed = await first.agent.request<State>("session/resume", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("code");

    const second = await restart(first, home, startEditor);
    const loaded = await load(second, sessionId, home);
    expect(loaded.modes?.currentModeId).toBe("code");
    expect(loaded.configOptions?.[0]?.currentValue).toBe("mock-large");
    const agent = await agentState(second, sessionId);
    expect(agent.modes?.currentModeId).toBe("code");
    expect(agent.configOptions?.[0]?.currentValue).toBe("mock-large");
  });

  it("current_mode_update and config_option_update from the agent are kept", async () => {
    const home = tempDir();
    mockConfig(home, ["--modes", "--config-options"]);
    const first = startEditor(home);
    const sessionId = await openSession(first, home);
    const options = [{ id: "model", currentValue: "mock-large" }];
    await first.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps(
          {
            update: {
              sessionUpdate: "current_mode_update",
              currentModeId: "code",
            },
          },
          {
            update: {
              sessionUpdate: "config_option_update",
              configOptions: options,
            },
          },
        ),
      ),
    });
    const second = await restart(first, home, startEditor);
    const loaded = await load(second, sessionId, home);
    expect(loaded.modes?.currentModeId).toBe("code");
    expect(loaded.configOptions).toEqual(options);
  });

  it("session/set_model switches the model (the agent's next turn reports it) and load answers it", async () => {
    const home = tempDir();
    mockConfig(home, ["--models", "--session-capabilities", "resume"]);
    const first = startEditor(home);
    await first.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const created = await first.agent.request<State & { sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    expect(created.models?.currentModelId).toBe("mock-default");
    const { sessionId } = created;
    await first.agent.request("session/set_model", {
      sessionId,
      modelId: "mock-opus",
    });
    expect((await agentState(first, sessionId)).models?.currentModelId).toBe(
      "mock-opus",
    );
    const second = await restart(first, home, startEditor);
    expect((await load(second, sessionId, home)).models?.currentModelId).toBe(
      "mock-opus",
    );
  });

  it("an agent that forgets settings on resume or load is switched back to the kept ones", async () => {
    // As claude-code-acp (its default model on resume) and pi-acp (its default thinking level
    // on load) do: acphub sets the chosen values again after a restart.
    const home = tempDir();
    const common = ["--modes", "--models", "--config-options"];
    const file = join(home, "mock-sessions.json");
    for (const how of [
      ["--session-capabilities", "resume"],
      ["--load-session"],
    ]) {
      mockConfig(home, [
        ...common,
        ...how,
        "--sessions-file",
        file,
        "--forget-settings",
      ]);
      const first = startEditor(home);
      const sessionId = await openSession(first, home);
      const set = (method: string, params: Record<string, unknown>) =>
        first.agent.request(method, { sessionId, ...params });
      await set("session/set_mode", { modeId: "code" });
      await set("session/set_model", { modelId: "mock-opus" });
      await set("session/set_config_option", {
        configId: "model",
        value: "mock-large",
      });
      const second = await restart(first, home, startEditor);
      const loaded = await load(second, sessionId, home);
      expect(loaded.modes?.currentModeId, how[0]).toBe("code");
      expect(loaded.models?.currentModelId, how[0]).toBe("mock-opus");
      expect(loaded.configOptions?.[0]?.currentValue, how[0]).toBe(
        "mock-large",
      );
      const agent = await agentState(second, sessionId);
      expect(agent.modes?.currentModeId, how[0]).toBe("code");
      expect(agent.models?.currentModelId, how[0]).toBe("mock-opus");
      expect(agent.configOptions?.[0]?.currentValue, how[0]).toBe("mock-large");
    }
  });

  it("set_* on a session whose agent reported no such setting is refused, saying why", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = startEditor(home);
    const sessionId = await openSession(e, home);
    await expect(
      e.agent.request("session/set_model", { sessionId, modelId: "x" }),
    ).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining("reported no models"),
    });
    await expect(
      e.agent.request("session/set_mode", { sessionId, modeId: "x" }),
    ).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining("reported no modes"),
    });
  });
});
