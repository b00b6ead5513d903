// Turns run events into output: NDJSON for --json, or plain text (the agent's reply on stdout,
// everything else as short lines on stderr) for people and pipes.
import type { RunEvent } from "../contracts/events.js";
import { textDelta } from "../agents/prompt-content.js";

export interface Sink {
  out: (text: string) => void;
  err: (text: string) => void;
}

export type Renderer = (event: RunEvent) => void;

export function jsonRenderer(sink: Sink): Renderer {
  return (event) => sink.out(JSON.stringify(event) + "\n");
}

function describe(event: RunEvent): string | undefined {
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
      const u = event.update as {
        sessionUpdate: string;
        title?: string;
        status?: string;
        toolCallId?: string;
      };
      if (u.sessionUpdate === "tool_call")
        return `[tool] ${u.title ?? u.toolCallId ?? ""} (${u.status ?? "pending"})`;
      return undefined;
    }
    default:
      return undefined;
  }
}

export function plainRenderer(sink: Sink): Renderer {
  let midLine = false;
  return (event) => {
    const text = textDelta(event);
    if (text) {
      sink.out(text);
      midLine = !text.endsWith("\n");
      return;
    }
    const line = describe(event);
    if (!line) return;
    if (midLine) {
      sink.out("\n");
      midLine = false;
    }
    sink.err(line + "\n");
  };
}
