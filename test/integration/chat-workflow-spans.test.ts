// A workflow run as a command in a `chat` session (issue 40 follow-up): each step's
// `invoke_agent` span is a child of the session's turn that ran the command (same trace, parent
// the turn's span), not a root of its own; the step agent's own span is under its step's span.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";

let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(() => otlp.close());

describe("acphub chat: a workflow's step spans", { timeout: 60_000 }, () => {
  it("are children of the session turn that ran the workflow", async () => {
    const home = tempDir();
    const mock = { command: process.execPath, args: [CLI, "mock-agent"] };
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ defaultAgent: "mock", agents: { mock } }),
    );
    const cwd = tempDir();
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    const step = (id: string, work: string) =>
      `  - id: ${id}\n    agent: mock\n    prompt: '${steps({ otelSpan: work }, { text: id })}'\n`;
    writeFileSync(
      join(cwd, ".acphub", "workflows", "two.yaml"),
      `name: two\nsteps:\n${step("first", "first work")}${step("second", "second work")}`,
    );
    const r = await runCli(["chat"], {
      home,
      cwd,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: "60000",
      },
      input: "/two\n",
    });
    expect(r.code).toBe(0);
    const turns = otlp.spans.filter((s) => s.name === "invoke_agent mock");
    // The session's turn (the /two prompt) and one per step.
    expect(turns).toHaveLength(3);
    const root = turns.find((s) => !s.parentSpanId)!;
    expect(root).toBeDefined();
    const stepSpans = turns.filter((s) => s !== root);
    for (const s of stepSpans) {
      expect(s.traceId).toBe(root.traceId);
      expect(s.parentSpanId).toBe(root.spanId);
      expect(s.attributes["gen_ai.conversation.id"]).not.toBe(
        root.attributes["gen_ai.conversation.id"],
      );
    }
    for (const work of ["first work", "second work"]) {
      const own = otlp.spans.find((s) => s.name === work);
      expect(own?.traceId).toBe(root.traceId);
      expect(stepSpans.map((s) => s.spanId)).toContain(own?.parentSpanId);
    }
  });
});
