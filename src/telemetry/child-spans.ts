// The child spans of one turn: `execute_tool {title or kind}` from a tool call's first update
// to its last status, `permission` from the question to its answer, `terminal {command}` from
// its creation to its release, `fs read`/`fs write` per file request (fs-spans.ts). A terminal's
// environment is never put on a span.
import {
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type {
  ClientRequestEvent,
  PermissionEvent,
  RunEvent,
} from "../contracts/events.js";
import { fsSpan } from "./fs-spans.js";

const FINAL = new Set(["completed", "failed"]);

// The spans of one turn under `parent`, fed its events in order.
export function childSpans(
  tracer: Tracer,
  parent: Context,
  roots: readonly string[] = [],
) {
  const tools = new Map<string, Span>();
  const terminals = new Map<string, Span>();
  // The tool call's span is the parent of its permission question, when still open.
  const under = (toolCallId: unknown) => {
    const tool =
      typeof toolCallId === "string" ? tools.get(toolCallId) : undefined;
    return tool ? trace.setSpan(parent, tool) : parent;
  };

  // A tool_call or tool_call_update: opens, updates or ends the tool's span.
  const tool = (u: Record<string, unknown>) => {
    const id = u["toolCallId"];
    if (typeof id !== "string") return;
    let span = tools.get(id);
    if (!span) {
      const name = String(u["title"] ?? u["kind"] ?? "tool");
      span = tracer.startSpan(
        `execute_tool ${name}`,
        {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": id,
            "gen_ai.tool.name": name,
          },
        },
        parent,
      );
      tools.set(id, span);
    }
    if (typeof u["kind"] === "string")
      span.setAttribute("gen_ai.tool.type", u["kind"]);
    const status = u["status"];
    if (typeof status !== "string") return;
    span.setAttribute("acphub.tool.status", status);
    if (!FINAL.has(status)) return;
    if (status === "failed") span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    tools.delete(id);
  };

  // A permission question answered: its span from when it was asked.
  const permission = (e: PermissionEvent) => {
    const outcome = e.outcome as { outcome: string; optionId?: string };
    const span = tracer.startSpan(
      "permission",
      {
        startTime: e.askedAt ?? Date.now(),
        attributes: {
          "gen_ai.tool.call.id": e.request.toolCall.toolCallId,
          "acphub.permission.outcome": outcome.outcome,
          ...(outcome.optionId
            ? { "acphub.permission.option_id": outcome.optionId }
            : {}),
          "acphub.permission.decided_by": e.decidedBy,
        },
      },
      under(e.request.toolCall.toolCallId),
    );
    span.end();
  };

  // terminal/create opens a terminal's span (command name only), wait_for_exit adds the exit
  // status, release ends it.
  const terminal = (e: ClientRequestEvent) => {
    const params = (e.params ?? {}) as Record<string, unknown>;
    if (e.method === "terminal/create") {
      const id = e.result?.["terminalId"];
      const command =
        String(params["command"] ?? "")
          .split(/[\\/]/)
          .pop() ?? "";
      const span = tracer.startSpan(
        `terminal ${command}`,
        {
          attributes: { "acphub.terminal.command": command },
        },
        parent,
      );
      if (!e.ok || typeof id !== "string") {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: e.error?.message,
        });
        span.end();
      } else terminals.set(id, span);
      return;
    }
    const id = params["terminalId"];
    const span = typeof id === "string" ? terminals.get(id) : undefined;
    if (!span) return;
    if (e.method === "terminal/wait_for_exit" && e.result) {
      const { exitCode, signal } = e.result;
      if (typeof exitCode === "number")
        span.setAttribute("process.exit.code", exitCode);
      if (typeof signal === "string")
        span.setAttribute("acphub.terminal.signal", signal);
    }
    if (e.method === "terminal/release") {
      span.end();
      terminals.delete(id as string);
    }
  };

  return {
    heard(event: RunEvent): void {
      if (event.type === "session_update") {
        const u = event.update as Record<string, unknown>;
        const kind = u["sessionUpdate"];
        if (kind === "tool_call" || kind === "tool_call_update") tool(u);
      } else if (event.type === "permission") permission(event);
      else if (event.type !== "client_request") return;
      else if (event.method.startsWith("terminal/")) terminal(event);
      else fsSpan(tracer, parent, event, roots);
    },
    /** The turn ended: whatever is still open ends with it. */
    endAll(): void {
      for (const span of [...tools.values(), ...terminals.values()]) span.end();
      tools.clear();
      terminals.clear();
    },
  };
}
