// Agent telemetry tokens on `acphub serve` are per agent process and released when the process
// ends (issue 40 follow-up): a member's agent exports with its token while it runs; once the hub
// reaps the idle process (serve.idleAgentMs), a span sent with that token is refused (401) and
// the receiver holds nothing for it (/metrics `acphub_agent_telemetry_tokens` back to 0); the
// process that restores the session gets a new token of its own.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INIT, text, type RunningHub } from "../helpers/hub.js";
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

// The number of agent tokens the hub's receiver accepts now, as /metrics shows it.
async function tokensHeld(h: RunningHub): Promise<number> {
  const r = await fetch(`${h.url}/metrics`, {
    headers: { Authorization: `Bearer ${h.token}` },
  });
  const m = /^acphub_agent_telemetry_tokens (\S+)$/m.exec(await r.text());
  return m ? Number(m[1]) : NaN;
}

// Polls /metrics until the hub holds `count` tokens (bounded: 30 s); the last count read.
async function tokensBecome(h: RunningHub, count: number): Promise<number> {
  let held = await tokensHeld(h);
  for (let i = 0; i < 600 && held !== count; i++) {
    await new Promise((r) => setTimeout(r, 50));
    held = await tokensHeld(h);
  }
  return held;
}

// Posts one small span to the receiver with `token`, as an agent's exporter would; the status.
async function sendSpan(endpoint: string, token: string): Promise<number> {
  const span = {
    traceId: "ab".repeat(16),
    spanId: "cd".repeat(8),
    name: "late work",
    kind: 1,
    startTimeUnixNano: "1",
    endTimeUnixNano: "2",
  };
  const r = await fetch(`${endpoint}/v1/traces`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-acphub-agent-token": token,
    },
    body: JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [span] }] }],
    }),
  });
  await r.body?.cancel();
  return r.status;
}

describe("acphub serve: agent telemetry tokens", { timeout: 90_000 }, () => {
  it("a reaped agent's token is refused and nothing is kept for it", async () => {
    const t = await team.start(
      { alice: "member" },
      {
        telemetry: { endpoint: otlp.endpoint },
        serve: { idleAgentMs: 300 },
      },
    );
    const c = team.connect(t, "alice", "ws");
    await c.agent.request("initialize", INIT);
    const { sessionId } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    // The agent's token and the receiver's address, as the agent was given them.
    const envOfAgent = async () => {
      const before = c.updates(sessionId).length;
      await c.agent.request("session/prompt", {
        sessionId,
        prompt: text(
          steps({
            env: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"],
          }),
        ),
      });
      const said = JSON.stringify(c.updates(sessionId).slice(before));
      return {
        endpoint:
          /OTEL_EXPORTER_OTLP_ENDPOINT=(http:\/\/127\.0\.0\.1:\d+)/.exec(
            said,
          )![1]!,
        token: /x-acphub-agent-token=([0-9a-f]{48})/.exec(said)![1]!,
      };
    };
    const first = await envOfAgent();
    expect(await tokensHeld(t.h)).toBeGreaterThanOrEqual(1);
    expect(await sendSpan(first.endpoint, first.token)).toBe(200);

    // Nothing of the session in use: the hub reaps the process, and its token goes with it.
    await c.agent.request("session/close", { sessionId });
    expect(await tokensBecome(t.h, 0)).toBe(0);
    expect(await sendSpan(first.endpoint, first.token)).toBe(401);

    // The session restored in a new process: a new token, accepted; the old one still refused.
    await c.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    const second = await envOfAgent();
    expect(second.token).not.toBe(first.token);
    expect(await tokensHeld(t.h)).toBeGreaterThanOrEqual(1);
    expect(await sendSpan(second.endpoint, second.token)).toBe(200);
    expect(await sendSpan(first.endpoint, first.token)).toBe(401);
  });
});
