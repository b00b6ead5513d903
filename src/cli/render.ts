// Turns run events into output: NDJSON for --json, or plain text (the agent's reply on stdout,
// everything else as short lines on stderr) for people and pipes.
import type { RunEvent } from "../contracts/events.js";
import { noticeLine, textDelta, type CliEvent } from "../app/client-events.js";
import { inertJson, safeDeep } from "./tty/safe-text.js";

export interface Sink {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The process's own: stdout and stderr. */
export const stdio: Sink = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export type Renderer = (event: CliEvent) => void;

// NDJSON, one event a line, inert on a terminal.
export function jsonRenderer(sink: Sink): Renderer {
  return (event) => sink.out(inertJson(event) + "\n");
}

// Tool lines: one when a tool call is announced, one more when it reaches its final status.
function toolLines(): (u: ToolUpdate) => string | undefined {
  const titles = new Map<string, string>();
  const said = new Map<string, string>();
  return (u) => {
    const id = u.toolCallId ?? "";
    if (u.title) titles.set(id, u.title);
    const status =
      u.status ?? (u.sessionUpdate === "tool_call" ? "pending" : undefined);
    const final = status === "completed" || status === "failed";
    if (!status || (u.sessionUpdate !== "tool_call" && !final))
      return undefined;
    if (said.get(id) === status) return undefined;
    said.set(id, status);
    return `[tool] ${titles.get(id) ?? id} (${status})`;
  };
}

interface ToolUpdate {
  sessionUpdate: string;
  title?: string;
  status?: string;
  toolCallId?: string;
}

function describe(
  event: RunEvent,
  tool: (u: ToolUpdate) => string | undefined,
): string | undefined {
  switch (event.type) {
    case "permission": {
      const what =
        event.request.toolCall.title ?? event.request.toolCall.toolCallId;
      const answer =
        event.outcome.outcome === "selected"
          ? event.outcome.optionId
          : "cancelled";
      return `[permission] ${what}: ${answer}${event.reason ? ` — ${event.reason}` : ""}`;
    }
    case "audit":
      return event.allowed
        ? undefined
        : `[${event.action}] ${event.path ?? event.command ?? ""} refused — ${event.reason}`;
    case "client_request":
      return event.ok ||
        event.method.startsWith("fs/") ||
        event.method === "terminal/create"
        ? undefined // fs and terminal refusals are reported by their audit event
        : `[${event.method}] failed: ${event.error?.message ?? ""}`;
    case "session_update": {
      const u = event.update as ToolUpdate;
      if (
        u.sessionUpdate === "tool_call" ||
        u.sessionUpdate === "tool_call_update"
      )
        return tool(u);
      return undefined;
    }
    default:
      return undefined;
  }
}

export function plainRenderer(sink: Sink): Renderer {
  let midLine = false;
  const tool = toolLines();
  return (raw) => {
    const event = safeDeep(raw); // agent text, shown inert (run, chat, flow run)
    const text = event.type === "notice" ? "" : textDelta(event);
    if (text) {
      sink.out(text);
      midLine = !text.endsWith("\n");
      return;
    }
    const line =
      event.type === "notice" ? noticeLine(event) : describe(event, tool);
    if (!line) return;
    if (midLine) {
      sink.out("\n");
      midLine = false;
    }
    sink.err(line + "\n");
  };
}
