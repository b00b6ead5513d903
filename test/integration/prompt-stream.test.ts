// A streamed turn through the client core against the real mock agent process.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { collect, connectMock, steps } from "../helpers/mock.js";

let agent: AgentConnection | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const updates = (events: RunEvent[]) =>
  events.filter((e) => e.type === "session_update").map((e) => e.update);

describe("a streamed turn", () => {
  it("yields every update in order and resolves the result", async () => {
    agent = await connectMock();
    expect(agent.initializeResponse?.agentInfo?.name).toBe("acphub-mock-agent");
    const session = await agent.newSession({ cwd: process.cwd() });
    const run = session.prompt(
      steps(
        { thought: "pondering" },
        { text: "hello world", chunks: 3 },
        {
          toolCall: {
            toolCallId: "t1",
            title: "Edit",
            kind: "edit",
            status: "pending",
          },
        },
        {
          toolCallUpdate: {
            toolCallId: "t1",
            status: "completed",
            content: [{ type: "diff", path: "/a", oldText: "x", newText: "y" }],
          },
        },
        { plan: [{ content: "step", priority: "high", status: "pending" }] },
        { usage: { used: 10, size: 100 } },
        { sessionInfo: { title: "A title" } },
        { commands: [{ name: "test", description: "run tests" }] },
      ),
    );
    const events = await collect(run);
    const kinds = updates(events).map((u) => u.sessionUpdate);
    expect(kinds).toEqual([
      "agent_thought_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "plan",
      "usage_update",
      "session_info_update",
      "available_commands_update",
    ]);
    const text = updates(events)
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u as { content: { text: string } }).content.text)
      .join("");
    expect(text).toBe("hello world");
    expect((await run.result).stopReason).toBe("end_turn");
  });

  it("passes unknown update variants, _meta and extension traffic through unchanged", async () => {
    const seen: unknown[] = [];
    agent = await connectMock([], {
      host: {
        extensions: {
          "_acphub.test/echo": (params) => (
            seen.push(params),
            { echoed: params }
          ),
        },
      },
    });
    const session = await agent.newSession({ cwd: process.cwd() });
    const future = {
      sessionUpdate: "future_variant",
      payload: { deep: [1, 2] },
      _meta: { "x.y/z": 1 },
    };
    const run = session.prompt(
      steps(
        { update: future, _meta: { outer: "kept" } },
        { text: "hi", _meta: { onChunk: true } },
        {
          extRequest: {
            method: "_acphub.test/echo",
            params: { sessionId: session.id, n: 7 },
          },
        },
        {
          extNotification: {
            method: "_acphub.test/note",
            params: { sessionId: session.id, k: "v" },
          },
        },
      ),
      { meta: { traceId: "abc" } },
    );
    const events = await collect(run);
    expect(events[0]).toEqual({
      type: "session_update",
      sessionId: session.id,
      update: future,
      meta: { outer: "kept" },
    });
    expect(events[1]).toMatchObject({ meta: { onChunk: true } });
    expect(seen).toEqual([{ sessionId: session.id, n: 7 }]);
    const echoed = events.find(
      (e) =>
        e.type === "session_update" &&
        JSON.stringify(e.update).includes("ext result"),
    );
    expect(JSON.stringify(echoed)).toContain('\\"n\\":7');
    expect(events).toContainEqual({
      type: "extension_notification",
      sessionId: session.id,
      method: "_acphub.test/note",
      params: { sessionId: session.id, k: "v" },
    });
  });

  it("passes the prompt response's stopReason, usage and _meta", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const prompt = JSON.stringify({
      steps: [{ text: "x" }],
      stopReason: "max_tokens",
      usage: { totalTokens: 5 },
      _meta: { vendor: { a: 1 } },
    });
    const result = await session.prompt(prompt).result;
    expect(result).toEqual({
      stopReason: "max_tokens",
      usage: { totalTokens: 5 },
      response: {
        stopReason: "max_tokens",
        usage: { totalTokens: 5 },
        _meta: { vendor: { a: 1 } },
      },
    });
  });

  it("chat() returns the text and chatStream() yields deltas", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const reply = await session.chat(steps({ text: "abcdef", chunks: 3 }));
    expect(reply).toMatchObject({ text: "abcdef", stopReason: "end_turn" });
    const deltas = await collect(
      session.chatStream(steps({ text: "abcdef", chunks: 3 })),
    );
    expect(deltas).toEqual(["ab", "cd", "ef"]);
  });

  it("rejects a second prompt while one runs, or queues it when asked", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const first = session.prompt(steps({ sleep: 300 }, { text: "first" }));
    expect(() => session.prompt("second")).toThrowError(
      expect.objectContaining({ code: "PROMPT_IN_FLIGHT" }),
    );
    const queued = session.prompt(steps({ text: "second" }), { queue: true });
    const [a, b] = await Promise.all([collect(first), collect(queued)]);
    expect(JSON.stringify(a)).toContain("first");
    expect(JSON.stringify(b)).toContain("second");
    expect(JSON.stringify(b)).not.toContain("first");
  });

  it("refuses permission by default when no approver is configured, with the agent's own option id", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const options = [
      { optionId: "proceed_once", name: "Yes", kind: "allow_once" },
      { optionId: "cancel", name: "No", kind: "reject_once" },
    ];
    const events = await collect(
      session.prompt(
        steps({ permission: { title: "Run rm", kind: "execute", options } }),
      ),
    );
    const decision = events.find((e) => e.type === "permission");
    expect(decision).toMatchObject({
      decidedBy: "default",
      outcome: { outcome: "selected", optionId: "cancel" },
    });
    expect(JSON.stringify(events)).toContain("permission denied (cancel)");
  });

  it("asks the host for permission and the agent acts on the answer", async () => {
    agent = await connectMock([], {
      host: {
        requestPermission: async () => ({
          outcome: { outcome: "selected", optionId: "allow" },
        }),
      },
    });
    const session = await agent.newSession({ cwd: process.cwd() });
    const events = await collect(
      session.prompt(
        steps(
          { permission: { title: "Edit", kind: "edit" } },
          { text: "done" },
        ),
      ),
    );
    expect(events.find((e) => e.type === "permission")).toMatchObject({
      decidedBy: "host",
    });
    expect(JSON.stringify(events)).toContain("permission granted (allow)");
    expect(JSON.stringify(events)).toContain("done");
  });
});
