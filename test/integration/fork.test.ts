// session/fork through `acphub acp` for any agent: with the agent's own fork, and from the
// ledger when the agent has none. The fork is listed, loadable, carries the parent's context
// into its first prompt, and is independent of the parent afterwards.
import { describe, expect, it } from "vitest";
import {
  chunkText,
  restart,
  turn,
  useEditors,
} from "../helpers/acp-session.js";
import { mockConfig, openSession, type TestEditor } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

const startEditor = useEditors();

interface Settings {
  modes?: { currentModeId: string };
  models?: { currentModelId: string };
}

// The user text replayed by session/load for a session.
async function replayedUserText(e: TestEditor, sessionId: string, cwd: string) {
  const from = e.updates().length;
  await e.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
  return e
    .updates()
    .slice(from)
    .map(
      (u) =>
        u["update"] as { sessionUpdate: string; content?: { text?: string } },
    )
    .filter((u) => u.sessionUpdate === "user_message_chunk")
    .map((u) => u.content?.text ?? "");
}

describe.each([
  ["the agent forks too", ["--session-capabilities", "fork"]],
  ["the agent cannot fork: restored from the ledger", []],
])("session/fork when %s", (name, flags) => {
  const agentForks = flags.length > 0;

  it("the fork is listed, replays the parent's history, carries its context, and is independent", async () => {
    const home = tempDir();
    mockConfig(home, flags);
    const e = startEditor(home);
    const parent = await openSession(e, home);
    await turn(e, parent, "remember the word zebra");
    const fork = await e.agent.request<{ sessionId: string }>("session/fork", {
      sessionId: parent,
      cwd: home,
      mcpServers: [],
    });
    expect(fork.sessionId).toMatch(/^hub-/);
    expect(fork.sessionId).not.toBe(parent);

    const list = await e.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      {},
    );
    expect(list.sessions.map((s) => s.sessionId)).toEqual(
      expect.arrayContaining([parent, fork.sessionId]),
    );

    // The fork's first prompt: the agent sees the parent's conversation.
    const reply = await turn(e, fork.sessionId, steps({ history: true }));
    expect(reply).toContain("remember the word zebra");
    const primed = reply.includes("[acphub] This session was restored");
    expect({ name, primed }).toEqual({ name, primed: !agentForks });

    // Independent: what happens in the fork is not in the parent, and the other way round.
    await turn(e, fork.sessionId, "only in the fork");
    await turn(e, parent, "only in the parent");
    const forkReplay = await replayedUserText(e, fork.sessionId, home);
    expect(forkReplay[0]).toBe("remember the word zebra");
    expect(forkReplay.join("\n")).toContain("only in the fork");
    expect(forkReplay.join("\n")).not.toContain("only in the parent");
    const parentReplay = await replayedUserText(e, parent, home);
    expect(parentReplay.join("\n")).not.toContain("only in the fork");
  });

  it("the fork keeps the parent's mode and model, also when the agent's fork forgets them", async () => {
    const home = tempDir();
    mockConfig(home, [...flags, "--modes", "--models", "--forget-settings"]);
    const e = startEditor(home);
    const parent = await openSession(e, home);
    await e.agent.request("session/set_mode", {
      sessionId: parent,
      modeId: "code",
    });
    await e.agent.request("session/set_model", {
      sessionId: parent,
      modelId: "mock-opus",
    });
    const fork = await e.agent.request<Settings & { sessionId: string }>(
      "session/fork",
      { sessionId: parent, cwd: home, mcpServers: [] },
    );
    expect(fork.modes?.currentModeId).toBe("code");
    expect(fork.models?.currentModelId).toBe("mock-opus");
    const said = await turn(e, fork.sessionId, steps({ state: true }));
    const agent = JSON.parse(said.replace(/^[\s\S]*state: /, "")) as Settings;
    expect(agent.modes?.currentModeId).toBe("code");
    expect(agent.models?.currentModelId).toBe("mock-opus");
  });

  it("a fork survives a restart of acphub and loads from the ledger", async () => {
    const home = tempDir();
    mockConfig(home, flags);
    const first = startEditor(home);
    const parent = await openSession(first, home);
    await turn(first, parent, "the parent's only message");
    const { sessionId } = await first.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId: parent, cwd: home, mcpServers: [] },
    );
    const second = await restart(first, home, startEditor);
    expect(await replayedUserText(second, sessionId, home)).toEqual([
      "the parent's only message",
    ]);
    await turn(second, sessionId, "what did I say?");
    expect(chunkText(second, 0, sessionId)).toContain(
      "the parent's only message",
    );
  });
});

describe("session/fork errors", () => {
  it("forking an unknown session is resource-not-found, and nothing is created", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = startEditor(home);
    await openSession(e, home);
    await expect(
      e.agent.request("session/fork", { sessionId: "hub-nope", cwd: home }),
    ).rejects.toMatchObject({ code: -32002 });
    const list = await e.agent.request<{ sessions: unknown[] }>(
      "session/list",
      {},
    );
    expect(list.sessions).toHaveLength(1);
  });
});
