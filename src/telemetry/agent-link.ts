// One agent process joined to acphub's traces: its environment points its exporter at the
// receiver with a token of its own, and the listener on its gateway tells the receiver which
// turns it is running (and their `invoke_agent` spans), so its spans land under them.
import { trace } from "@opentelemetry/api";
import type { EngineEvents } from "../engine/events.js";
import { withAgentTelemetry } from "./agent-env.js";
import type { AgentReceiver } from "./agent-receiver.js";
import type { AgentTurn } from "./agent-spans.js";
import type { OpenTurn } from "./turn-tracer.js";

export interface AgentTelemetry {
  /** The agent's environment with the telemetry variables (the user's own kept). */
  env: Record<string, string>;
  /** The gateway's listener that keeps the receiver told of the agent's turns. */
  events: EngineEvents;
}

// Registers an agent process with the receiver; `open` holds the traced turns by session.
export function linkAgent(
  receiver: AgentReceiver,
  open: ReadonlyMap<string, OpenTurn>,
  agentName: string,
  env: Record<string, string>,
  mask: (text: string) => string,
): AgentTelemetry {
  const turns = new Map<string, AgentTurn>();
  // A running turn with its span's ids (the turn tracer opened it just before).
  const withSpan = (t: AgentTurn): AgentTurn => {
    const turn = open.get(t.sessionId);
    const ctx = turn ? trace.getSpanContext(turn.context) : undefined;
    return ctx ? { ...t, traceId: ctx.traceId, spanId: ctx.spanId } : t;
  };
  const token = receiver.register({
    agentName,
    mask,
    traces: new Map(),
    running: () => [...turns.values()],
  });
  return {
    env: withAgentTelemetry(agentName, env, {
      endpoint: receiver.endpoint,
      token,
    }),
    events: {
      turnStarted: (e) =>
        turns.set(
          e.sessionId,
          withSpan({
            sessionId: e.sessionId,
            promptSeq: e.promptSeq,
            ...(e.author ? { author: e.author } : {}),
          }),
        ),
      turnEnded: (e) => turns.delete(e.sessionId),
    },
  };
}
