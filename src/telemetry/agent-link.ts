// An agent's processes joined to acphub's traces: each process's environment points its exporter
// at the receiver with a token of its own, released when the process ends, and the listener on
// its gateway tells the receiver which turns it is running (and their `invoke_agent` spans), so
// its spans land under them.
import { trace } from "@opentelemetry/api";
import type { EngineEvents } from "../engine/events.js";
import { withAgentTelemetry } from "./agent-env.js";
import type { AgentReceiver } from "./agent-receiver.js";
import type { AgentTurn } from "./agent-spans.js";
import type { OpenTurn } from "./turn-tracer.js";

export interface AgentTelemetry {
  /** A token for one agent process about to start: its environment with the telemetry variables
   *  (the user's own kept), and `release` for when the process ends (the token is refused). */
  process(): { env: Record<string, string>; release(): void };
  /** The gateway's listener that keeps the receiver told of the agent's turns. */
  events: EngineEvents;
}

// Joins an agent's processes to acphub's traces; `open` holds the traced turns by session.
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
  return {
    process: () => {
      const token = receiver.register({
        agentName,
        mask,
        traces: new Map(),
        running: () => [...turns.values()],
      });
      const { endpoint } = receiver;
      return {
        env: withAgentTelemetry(agentName, env, { endpoint, token }),
        release: () => receiver.release(token),
      };
    },
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
