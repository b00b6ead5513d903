// Traces with each real agent of the lab behind `acphub acp`: a turn with tool calls reaches a
// local OTLP/HTTP receiver as one `invoke_agent {agent}` span whose children include an
// `execute_tool` span of the same trace.
import {
  afterEach,
  beforeEach,
  describe,
  expect,
  it,
  onTestFailed,
} from "vitest";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";
import { startEditorOn } from "./lab/editor-client.mjs";
import { acphubArgv, dumpOnFailure } from "./lab/lab.js";
import * as scenario from "./lab/scenario.js";
import { labRuns, promptTurn, type LabEditor } from "./lab/turns.js";
import { AGENT_NAMES } from "./lab/versions.mjs";

const runs = labRuns();
let otlp: OtlpReceiver;
let traced: LabEditor | undefined;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(async () => {
  await traced?.close();
  traced = undefined;
  await otlp.close();
});

describe.each(AGENT_NAMES)("%s traced behind acphub acp", (agent) => {
  it("a turn with tools is an invoke_agent span with execute_tool children", async () => {
    const l = await runs.open(agent);
    traced = startEditorOn(
      {
        command: process.execPath,
        args: acphubArgv("acp"),
        env: {
          ...l.acphubEnv,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
          OTEL_BSP_SCHEDULE_DELAY: "50",
        },
        cwd: l.work,
      },
      { fs: false, terminal: false },
    );
    const ed = traced;
    onTestFailed(() => dumpOnFailure(l, [ed]));
    await ed.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: ed.clientCapabilities,
    });
    const { sessionId } = await ed.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: l.work, mcpServers: [] },
    );
    const t = await promptTurn(ed, sessionId, scenario.turnTools(l.work));
    expect(t.response.stopReason).toBe("end_turn");
    const name = `invoke_agent ${agent}`;
    await otlp.waitFor((s) => s.some((x) => x.name === name));
    const turn = otlp.spans.find((s) => s.name === name)!;
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": sessionId,
      "gen_ai.response.finish_reasons": ["end_turn"],
    });
    await otlp.waitFor((s) =>
      s.some(
        (x) =>
          x.parentSpanId === turn.spanId && x.name.startsWith("execute_tool"),
      ),
    );
    const tools = otlp.spans.filter(
      (s) =>
        s.parentSpanId === turn.spanId && s.name.startsWith("execute_tool"),
    );
    expect(tools.every((s) => s.traceId === turn.traceId)).toBe(true);
    expect(tools[0]!.attributes["gen_ai.tool.call.id"]).toEqual(
      expect.any(String),
    );
  });
});
