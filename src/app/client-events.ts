// What the CLI renders: the run events of a turn, plus acphub's own notices, kept apart from
// the agent's voice (a notice is never an agent message).
import type { RunEvent } from "../contracts/events.js";
import { isAllowed } from "../protocol/permission-options.js";

/** acphub speaking to the user about a session (restored, trimmed, …); never the agent. */
export interface NoticeEvent {
  type: "notice";
  sessionId: string;
  severity: string;
  title: string;
  description?: string;
}

export type CliEvent = RunEvent | NoticeEvent;

// The ACP `notice` update the gateway sends to an editor that advertised notices, as an event.
export function noticeFrom(
  sessionId: string,
  update: { sessionUpdate: string; [key: string]: unknown },
): NoticeEvent | undefined {
  if (update["sessionUpdate"] !== "notice") return undefined;
  const description = update["description"];
  return {
    type: "notice",
    sessionId,
    severity: String(update["severity"] ?? "info"),
    title: String(update["title"] ?? ""),
    ...(typeof description === "string" ? { description } : {}),
  };
}

// A notice as one line for people.
export function noticeLine(event: NoticeEvent): string {
  return `acphub: ${event.title}${event.description ? ` ${event.description}` : ""}`;
}

/** The text an event adds to the agent's reply, for renderers. */
export { textDelta } from "../agents/prompt-content.js";

// A permission refused, or a file or terminal request the policy or sandbox refused (run's
// exit code 5).
export function isRefusal(event: RunEvent): boolean {
  if (event.type === "permission")
    return !isAllowed(event.outcome, event.request.options);
  return event.type === "audit" && !event.allowed;
}

/** A tool call as its updates so far describe it. */
export interface ToolCallState {
  title: string;
  kind: string;
  status: string;
  locations: { path: string; line?: number }[];
  content: Record<string, unknown>[];
}

// A tool call after one more update: what the update omits keeps its value (ACP's
// tool_call_update); a new call is titled by its id, of kind "other", pending, until told.
export function toolCallState(
  update: Record<string, unknown>,
  known?: ToolCallState,
): ToolCallState {
  const field = <K extends keyof ToolCallState>(key: K) =>
    (update[key] as ToolCallState[K] | undefined) ?? known?.[key];
  return {
    title: String(field("title") ?? update["toolCallId"]),
    kind: String(field("kind") ?? "other"),
    status: String(field("status") ?? "pending"),
    locations: field("locations") ?? [],
    content: field("content") ?? [],
  };
}
