// The agents' own spans on `acphub serve` (issue 40): a member's agent exports a span of its own
// over the env acphub gave it; the span reaches the operator's collector under the member's turn
// (`invoke_agent`), naming the member, and the agent saw only the loopback receiver.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INIT, text } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";

const team = teamFixture();
let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(async () => {
  await team.cleanup();
  await otlp.close();
});

describe("acphub serve: the agents' own spans", { timeout: 90_000 }, () => {
  it("a member's agent span lands under the member's turn, naming the member", async () => {
    const t = await team.start(
      { alice: "member" },
      { telemetry: { endpoint: otlp.endpoint } },
    );
    const c = team.connect(t, "alice", "ws");
    await c.agent.request("initialize", INIT);
    const { sessionId } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await c.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps(
          { otelSpan: "member work" },
          { env: ["OTEL_EXPORTER_OTLP_ENDPOINT"] },
        ),
      ),
    });
    const reply = JSON.stringify(c.updates());
    expect(reply).toContain("otel: 200");
    // The agent was pointed at acphub's loopback receiver, not the operator's collector.
    expect(reply).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(reply).not.toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${otlp.endpoint}`);
    const find = () => ({
      turn: otlp.spans.find(
        (s) =>
          s.name === "invoke_agent mock" &&
          s.attributes["gen_ai.conversation.id"] === sessionId,
      ),
      own: otlp.spans.find((s) => s.name === "member work"),
    });
    await otlp.waitFor(() => !!find().turn && !!find().own);
    const { turn, own } = find();
    expect(own!.traceId).toBe(turn!.traceId);
    expect(own!.parentSpanId).toBe(turn!.spanId);
    expect(own!.attributes).toMatchObject({
      "enduser.id": "alice",
      "gen_ai.conversation.id": sessionId,
      "gen_ai.agent.name": "mock",
    });
  });
});
