// How an agent's own spans are attached to acphub's turns (telemetry/agent-spans.ts): into the
// turn's trace under its invoke_agent span when the process runs one turn, left in their own
// trace when several run and the agent named none, and masked everywhere.
import { describe, expect, it } from "vitest";
import {
  attachAgentSpans,
  type AgentLink,
  type AgentTurn,
} from "../../src/telemetry/agent-spans.js";

const TURN: AgentTurn = {
  sessionId: "hub-1",
  promptSeq: 3,
  author: "alice",
  traceId: "a".repeat(32),
  spanId: "b".repeat(16),
};

function link(running: AgentTurn[]): AgentLink {
  return {
    agentName: "claude",
    running: () => running,
    mask: (t) => t.replaceAll("hunter22secret", "***"),
    traces: new Map(),
  };
}

const doc = (spans: Record<string, unknown>[]) => ({
  resourceSpans: [
    {
      resource: {
        attributes: [{ key: "k", value: { stringValue: "hunter22secret" } }],
      },
      scopeSpans: [{ spans }],
    },
  ],
});

type Out = {
  resourceSpans: {
    resource: {
      attributes: { key: string; value: { stringValue?: string } }[];
    };
    scopeSpans: { spans: Record<string, unknown>[] }[];
  }[];
};
const spansOf = (d: unknown) =>
  (d as Out).resourceSpans[0]!.scopeSpans[0]!.spans;
const attr = (s: Record<string, unknown>, key: string) =>
  (s["attributes"] as { key: string; value: Record<string, unknown> }[]).find(
    (a) => a.key === key,
  )?.value;

describe("attachAgentSpans", () => {
  it("moves a lone turn's agent trace under its invoke_agent span, children and later batches too", () => {
    const l = link([TURN]);
    const root = {
      traceId: "c".repeat(32),
      spanId: "1".repeat(16),
      name: "root",
      parentSpanId: "",
    };
    const child = {
      traceId: "c".repeat(32),
      spanId: "2".repeat(16),
      parentSpanId: "1".repeat(16),
      name: "hunter22secret",
    };
    const [r, c] = spansOf(attachAgentSpans(l, doc([root, child])));
    expect(r).toMatchObject({
      traceId: TURN.traceId,
      parentSpanId: TURN.spanId,
    });
    expect(c).toMatchObject({
      traceId: TURN.traceId,
      parentSpanId: "1".repeat(16),
      name: "***",
    });
    expect(attr(r!, "enduser.id")).toEqual({ stringValue: "alice" });
    expect(attr(r!, "acphub.prompt.seq")).toEqual({ intValue: "3" });
    // The turn has ended, but a late span of the same agent trace still follows it.
    const late = {
      traceId: "c".repeat(32),
      spanId: "3".repeat(16),
      parentSpanId: "1".repeat(16),
      name: "late",
    };
    const done = { ...l, running: () => [] };
    expect(spansOf(attachAgentSpans(done, doc([late])))[0]).toMatchObject({
      traceId: TURN.traceId,
    });
  });

  it("leaves a span alone (but for the agent's name) when several turns run and none is named", () => {
    const other = { ...TURN, sessionId: "hub-2", traceId: "d".repeat(32) };
    const span = { traceId: "e".repeat(32), spanId: "4".repeat(16), name: "x" };
    const [s] = spansOf(attachAgentSpans(link([TURN, other]), doc([span])));
    expect(s!["traceId"]).toBe("e".repeat(32));
    expect(s!["parentSpanId"]).toBeUndefined();
    expect(attr(s!, "gen_ai.conversation.id")).toBeUndefined();
    expect(attr(s!, "gen_ai.agent.name")).toEqual({ stringValue: "claude" });
    // A span in one turn's trace (the agent read its traceparent) is that turn's, unmoved.
    const joined = {
      traceId: other.traceId,
      spanId: "5".repeat(16),
      parentSpanId: "6".repeat(16),
      name: "y",
    };
    const [j] = spansOf(attachAgentSpans(link([TURN, other]), doc([joined])));
    expect(j).toMatchObject({
      traceId: other.traceId,
      parentSpanId: "6".repeat(16),
    });
    expect(attr(j!, "gen_ai.conversation.id")).toEqual({
      stringValue: "hub-2",
    });
  });

  it("masks the resource's attributes", () => {
    const out = attachAgentSpans(link([]), doc([])) as Out;
    expect(
      out.resourceSpans[0]!.resource.attributes[0]!.value.stringValue,
    ).toBe("***");
  });
});
