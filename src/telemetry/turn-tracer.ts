// The spans of an engine's turns: one `invoke_agent {agent}` span per prompt turn, with child
// spans for its tool calls, permission questions and terminals, made from the engine's events.
// A `traceparent` in the editor's prompt `_meta` continues the editor's trace, and the agent is
// given this turn's own in the `_meta` of its session/prompt.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { RunEvent } from "../contracts/events.js";
import type {
  EngineEvents,
  PromptRefused,
  TurnEnded,
  TurnStarted,
} from "../engine/events.js";
import { childSpans } from "./child-spans.js";
import { contentText, usageAttributes } from "./attributes.js";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// The editor's trace context from a prompt's `_meta`, or a new root when it names none.
export function parentContext(meta?: Record<string, unknown>): Context {
  const header = meta?.["traceparent"];
  const m = typeof header === "string" ? TRACEPARENT.exec(header) : null;
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: parseInt(m[3]!, 16) & 1,
    isRemote: true,
  });
}

/** A running turn as the ledger's batches see it: its context, and the group commits that held
 *  its events so far (counted on the turn's span; only slow ones get a span of their own). */
export interface OpenTurn {
  context: Context;
  batches: number;
  batchMs: number;
  batchMaxMs: number;
  /** Ends the turn's span now, in error (acphub exits before the turn ends). */
  abandon?(reason: string): void;
}

/** One running turn: its span and the children still open. */
export interface TurnTrace extends OpenTurn {
  span: Span;
  children: ReturnType<typeof childSpans>;
  reply: string[];
}

export interface TracerOptions {
  tracer: Tracer;
  agentName: string;
  captureContent: boolean;
  /** Masks known secrets in text put on a span. */
  mask: (text: string) => string;
  /** fs.roots from config: fs paths on spans are relative to the session's folder or these. */
  roots?: readonly string[];
  /** Each running turn by session (ledger batches find their turn in it). */
  open?: Map<string, OpenTurn>;
  /** This process's node id when it is a node of a cluster (known once it joined). */
  nodeId?: () => string | undefined;
}

// The listener the composition root gives a gateway when tracing is on.
export function turnTracer(o: TracerOptions): EngineEvents {
  const turns = new Map<string, TurnTrace>();
  return {
    turnStarted: (e) => {
      const turn = startTurn(o, e);
      turns.set(e.sessionId, turn);
      o.open?.set(e.sessionId, turn);
      turn.abandon = (reason) => {
        if (turns.get(e.sessionId) !== turn) return;
        turns.delete(e.sessionId);
        o.open?.delete(e.sessionId);
        endTurn(o, turn, {
          sessionId: e.sessionId,
          error: reason,
          interrupted: true,
        });
      };
    },
    promptMeta: (sessionId) => {
      const turn = turns.get(sessionId);
      const ctx = turn?.span.spanContext();
      if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
      const flags = ctx.traceFlags.toString(16).padStart(2, "0");
      return { traceparent: `00-${ctx.traceId}-${ctx.spanId}-${flags}` };
    },
    turnEvent: (sessionId, event) => {
      const turn = turns.get(sessionId);
      if (turn) heard(o, turn, event);
    },
    promptRefused: (e) => refusedSpan(o, e),
    turnEnded: (e) => {
      const turn = turns.get(e.sessionId);
      turns.delete(e.sessionId);
      o.open?.delete(e.sessionId);
      if (turn) endTurn(o, turn, e);
    },
  };
}

// A prompt refused before its turn (a spent budget, a limit): a span of its own, in error, so
// a trace shows why nothing ran.
function refusedSpan(o: TracerOptions, e: PromptRefused): void {
  const span = o.tracer.startSpan(`invoke_agent ${o.agentName}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": o.agentName,
      "gen_ai.conversation.id": e.sessionId,
      "error.type": e.code,
      ...(e.author ? { "enduser.id": e.author } : {}),
    },
  });
  span.setStatus({ code: SpanStatusCode.ERROR, message: o.mask(e.message) });
  span.end();
}

// Who prompted (the hub user, when the hub has users) and where the turn ran (a cluster node).
function whoAndWhere(o: TracerOptions, e: TurnStarted): Record<string, string> {
  const node = o.nodeId?.();
  return {
    ...(e.author ? { "enduser.id": e.author } : {}),
    ...(node ? { "acphub.node.id": node } : {}),
  };
}

// Opens the turn's span under the editor's context.
function startTurn(o: TracerOptions, e: TurnStarted): TurnTrace {
  const span = o.tracer.startSpan(
    `invoke_agent ${o.agentName}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": o.agentName,
        "gen_ai.conversation.id": e.sessionId,
        "acphub.prompt.seq": e.promptSeq,
        ...(e.model ? { "gen_ai.request.model": e.model } : {}),
        ...whoAndWhere(o, e),
      },
    },
    parentContext(e.meta),
  );
  if (o.captureContent)
    span.setAttribute("gen_ai.input.messages", o.mask(contentText(e.prompt)));
  const context = trace.setSpan(ROOT_CONTEXT, span);
  const roots = [...(e.cwd ? [e.cwd] : []), ...(o.roots ?? [])];
  return {
    span,
    context,
    children: childSpans(o.tracer, context, roots),
    reply: [],
    batches: 0,
    batchMs: 0,
    batchMaxMs: 0,
  };
}

// One event of the turn: usage and reply text on the turn's span, the rest to its children.
function heard(o: TracerOptions, turn: TurnTrace, event: RunEvent): void {
  if (event.type === "session_update") {
    const u = event.update as Record<string, unknown>;
    if (u["sessionUpdate"] === "usage_update")
      turn.span.setAttributes(usageAttributes(u));
    else if (
      o.captureContent &&
      u["sessionUpdate"] === "agent_message_chunk" &&
      (u["content"] as { type?: string })?.type === "text"
    )
      turn.reply.push(String((u["content"] as { text?: unknown }).text ?? ""));
  }
  turn.children.heard(event);
}

// Closes the turn's children, then the turn, with its stop reason and usage.
function endTurn(o: TracerOptions, turn: TurnTrace, e: TurnEnded): void {
  turn.children.endAll();
  const { span } = turn;
  if (e.usage) span.setAttributes(usageAttributes(e.usage));
  if (turn.batches > 0)
    span.setAttributes({
      "acphub.ledger.batches": turn.batches,
      "acphub.ledger.batch_ms": turn.batchMs,
      "acphub.ledger.batch_max_ms": turn.batchMaxMs,
    });
  if (e.stopReason)
    span.setAttribute("gen_ai.response.finish_reasons", [e.stopReason]);
  if (o.captureContent && turn.reply.length)
    span.setAttribute("gen_ai.output.messages", o.mask(turn.reply.join("")));
  if (e.error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.error });
    span.setAttribute("error.type", e.interrupted ? "interrupted" : "error");
  }
  span.end();
}
