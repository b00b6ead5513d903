// Ledger batches under tracing: every group commit holding a running turn's events is counted on
// that turn, and only a slow or failed one gets a `ledger batch` span (a span per commit was
// ~1 span per 100 relayed updates, most of tracing's cost).
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { batchSpan } from "../../src/telemetry/tracing.js";
import { turnTracer, type OpenTurn } from "../../src/telemetry/turn-tracer.js";

// A tracer whose ended spans the test reads.
function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return { exporter, tracer: provider.getTracer("test") };
}

// A batch report of `ms` milliseconds holding events of `sessionIds`.
const report = (sessionIds: string[], ms: number, error?: string) => ({
  sessionIds,
  events: 3,
  bytes: 300,
  startedAt: 1_000,
  endedAt: 1_000 + ms,
  ...(error ? { error } : {}),
});

// An in-memory tracer and the turn listener that opens its turns' spans.
function tracedTurns() {
  const { exporter, tracer } = tracing();
  const open = new Map<string, OpenTurn>();
  const l = turnTracer({
    tracer,
    agentName: "mock",
    captureContent: false,
    mask: (t) => t,
    open,
  });
  return { exporter, tracer, open, l };
}

describe("ledger batch spans", () => {
  it("counts every commit on the turn; a span only for a slow or failed one", () => {
    const { exporter, tracer, open, l } = tracedTurns();
    l.turnStarted!({ sessionId: "s1", promptSeq: 1, prompt: [] });
    l.turnStarted!({ sessionId: "s2", promptSeq: 1, prompt: [] });
    batchSpan(tracer, open, report(["s1"], 2), 50);
    batchSpan(tracer, open, report(["s1", "s2"], 49), 50);
    batchSpan(tracer, open, report(["s2", "s1"], 80), 50);
    batchSpan(tracer, open, report(["s1"], 1, "disk full"), 50);
    batchSpan(tracer, open, report(["other"], 500), 50); // no running turn
    l.turnEnded!({ sessionId: "s1", stopReason: "end_turn" });
    l.turnEnded!({ sessionId: "s2", stopReason: "end_turn" });
    const spans = exporter.getFinishedSpans();
    const batches = spans.filter((s) => s.name === "ledger batch");
    expect(batches.map((s) => s.status.code)).toEqual([0, 2]);
    const [slow] = batches;
    const turn = (id: string) =>
      spans.find((s) => s.attributes["gen_ai.conversation.id"] === id)!;
    expect(slow!.parentSpanContext?.spanId).toBe(
      turn("s2").spanContext().spanId,
    );
    expect(slow!.links.map((k) => k.context.spanId)).toEqual([
      turn("s1").spanContext().spanId,
    ]);
    expect(turn("s1").attributes).toMatchObject({
      "acphub.ledger.batches": 4,
      "acphub.ledger.batch_ms": 132,
      "acphub.ledger.batch_max_ms": 80,
    });
    expect(turn("s2").attributes["acphub.ledger.batches"]).toBe(2);
  });

  it("a threshold of 0 makes a span of every commit", () => {
    const { exporter, tracer, open, l } = tracedTurns();
    l.turnStarted!({ sessionId: "s1", promptSeq: 1, prompt: [] });
    batchSpan(tracer, open, report(["s1"], 0), 0);
    batchSpan(tracer, open, report(["s1"], 1), 0);
    l.turnEnded!({ sessionId: "s1", stopReason: "end_turn" });
    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names.filter((n) => n === "ledger batch")).toHaveLength(2);
  });
});
