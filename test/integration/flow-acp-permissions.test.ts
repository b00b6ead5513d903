// A step agent's permission request reaches the editor (an SDK client over `acphub acp`) under
// the step's prefixed tool call id, the id its relayed tool calls carry, and the answer gets back.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  onlyProtocolOnStdout,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

type Ev = Record<string, unknown>;
const tracker = editorTracker();
afterEach(() =>
  tracker.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const SCENARIO = steps(
  {
    toolCall: {
      toolCallId: "e1",
      title: "Edit notes.md",
      kind: "edit",
      status: "pending",
    },
  },
  { permission: { toolCallId: "e1", title: "Edit notes.md", kind: "edit" } },
);

describe("step agents' permission requests in acphub acp", () => {
  it("carry the step prefix on the tool call id toward the editor; the answer reaches the agent", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    mockConfig(home, [], { permissions: { mode: "ask" } });
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(
      join(cwd, ".acphub", "workflows", "edit.yaml"),
      `name: edit\nsteps:\n  - id: act\n    agent: mock\n    prompt: ${JSON.stringify(SCENARIO)}\n`,
    );
    const asked: Ev[] = [];
    const e = tracker.track(
      startEditor(home, {
        onRequest: (method, params) => {
          asked.push({ method, ...params });
          return Promise.resolve({
            outcome: { outcome: "selected", optionId: "allow" },
          });
        },
      }),
    );
    const sessionId = await openSession(e, cwd);
    const response = await e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/edit" }],
    });
    expect(response["stopReason"]).toBe("end_turn");
    const request = asked.find(
      (a) => a["method"] === "session/request_permission",
    )!;
    expect(request["sessionId"]).toBe(sessionId);
    expect((request["toolCall"] as Ev)["toolCallId"]).toBe("act/e1");
    const updates = e.updates().map((p) => p["update"] as Ev);
    const relayed = updates.find(
      (u) =>
        u["sessionUpdate"] === "tool_call" && u["title"] === "Edit notes.md",
    )!;
    expect(relayed["toolCallId"]).toBe("act/e1");
    const said = updates
      .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
      .map((u) => (u["content"] as { text?: string }).text)
      .join("");
    expect(said).toContain("permission granted (allow)");
  });
});
