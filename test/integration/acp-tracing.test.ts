// Traces through `acphub acp`: a mock-agent turn with a permission question, a tool call and a
// terminal is sent to a real OTLP/HTTP receiver as one `invoke_agent` span with its children,
// continuing the editor's trace, and the agent is handed acphub's own traceparent.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INIT, mockConfig } from "../helpers/editor.js";
import { chunkText, useEditors, text } from "../helpers/acp-session.js";
import { steps, tempDir } from "../helpers/mock.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";

const start = useEditors();
let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(() => otlp.close());

const EDITOR_TRACE = "0af7651916cd43dd8448eb211c80319c";
const EDITOR_SPAN = "b7ad6b7169203331";

// One turn with a permission question, a tool call with its updates, a terminal and usage.
const TURN = steps(
  {
    toolCall: {
      toolCallId: "t1",
      title: "Edit a.txt",
      kind: "edit",
      status: "pending",
    },
  },
  { permission: { toolCallId: "t1", title: "Edit a.txt", kind: "edit" } },
  { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
  { terminal: { command: "echo", args: ["hi"] } },
  { readFile: { path: "HOME/notes/in.txt" } },
  { writeFile: { path: "HOME/notes/out.txt", content: "hello" } },
  {
    usage: {
      used: 1200,
      size: 200000,
      cost: { amount: 0.25, currency: "USD" },
    },
  },
  { promptMeta: true },
  { text: "done" },
);

describe("tracing", () => {
  it("sends the turn's span tree to an OTLP/HTTP receiver, under the editor's trace", async () => {
    const home = tempDir();
    mockConfig(home, ["--models"], {
      terminals: { sandbox: "off" },
      telemetry: { ledgerBatchSpanMs: 0 }, // every group commit a span
    });
    const project = tempDir();
    mkdirSync(join(project, "notes"));
    writeFileSync(join(project, "notes", "in.txt"), "some text\n");
    const asked: string[] = [];
    const e = start(home, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_SERVICE_NAME: "acphub-test",
        OTEL_BSP_SCHEDULE_DELAY: "50",
      },
      // Allows once, whatever acphub or the agent offers.
      onRequest: (method, params) => {
        asked.push(method);
        const options = params["options"] as {
          optionId: string;
          kind: string;
        }[];
        const allow = options.find((o) => o.kind === "allow_once")!;
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      },
    });
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: project, mcpServers: [] },
    );
    const from = e.updates().length;
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: text(TURN.replaceAll("HOME", project)),
      _meta: { traceparent: `00-${EDITOR_TRACE}-${EDITOR_SPAN}-01` },
    });
    await otlp.waitFor((s) => s.some((x) => x.name.startsWith("invoke_agent")));
    const turn = otlp.spans.find((s) => s.name === "invoke_agent mock")!;
    expect(turn).toMatchObject({
      traceId: EDITOR_TRACE,
      parentSpanId: EDITOR_SPAN,
      service: "acphub-test",
    });
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "mock",
      "gen_ai.conversation.id": sessionId,
      "gen_ai.request.model": "mock-default",
      "gen_ai.response.finish_reasons": ["end_turn"],
      "acphub.context.used_tokens": 1200,
      "acphub.cost.amount": 0.25,
    });
    expect(turn.attributes["gen_ai.input.messages"]).toBeUndefined();
    const children = otlp.spans.filter((s) => s.parentSpanId === turn.spanId);
    const tool = children.find((s) => s.name === "execute_tool Edit a.txt")!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.call.id": "t1",
      "gen_ai.tool.type": "edit",
      "acphub.tool.status": "completed",
    });
    const permission = otlp.spans.find((s) => s.name === "permission")!;
    expect(permission.parentSpanId).toBe(tool.spanId);
    expect(permission.attributes).toMatchObject({
      "acphub.permission.outcome": "selected",
      "acphub.permission.option_id": "allow",
      "acphub.permission.decided_by": "host",
    });
    const terminal = children.find((s) => s.name === "terminal echo")!;
    expect(terminal.attributes).toMatchObject({
      "acphub.terminal.command": "echo",
      "process.exit.code": 0,
    });
    const read = children.find((s) => s.name === "fs read")!;
    expect(read.attributes).toMatchObject({
      "acphub.fs.operation": "read",
      "acphub.fs.path": join("notes", "in.txt"),
    });
    expect(read.status?.code ?? 0).not.toBe(2);
    const write = children.find((s) => s.name === "fs write")!;
    expect(write.attributes).toMatchObject({
      "acphub.fs.path": join("notes", "out.txt"),
      "acphub.fs.bytes": 5,
    });
    expect(JSON.stringify(otlp.spans)).not.toContain(project);
    const batches = children.filter((s) => s.name === "ledger batch");
    expect(batches.length).toBeGreaterThan(0);
    expect(batches[0]!.attributes["acphub.ledger.events"]).toBeGreaterThan(0);
    expect(turn.attributes["acphub.ledger.batches"]).toBe(batches.length);
    expect(otlp.spans.every((s) => s.traceId === EDITOR_TRACE)).toBe(true);
    expect(asked).toContain("session/request_permission");
    // The agent was handed the turn span's context, not the editor's.
    const told = chunkText(e, from, sessionId);
    expect(told).toContain(
      `prompt _meta: {"traceparent":"00-${EDITOR_TRACE}-${turn.spanId}-01"}`,
    );
  });
});
