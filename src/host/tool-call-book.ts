// What each session's agent announced about its tool calls (`tool_call`, `tool_call_update`),
// kept small and bounded, so a later permission request for the same toolCallId that lacks
// its kind or title can be completed, and its grant covers the paths and commands announced.
import type { ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { RawSessionUpdate } from "../contracts/events.js";
import {
  mergeSubjects,
  subjectsOf,
  type ToolSubjects,
} from "./tool-call-scope.js";

export interface KnownToolCall {
  kind?: string;
  title?: string;
  /** The paths and commands it named (bounded). */
  subjects?: ToolSubjects;
}

/** Tool calls remembered per session; the oldest are forgotten first. */
export const MAX_TOOL_CALLS_PER_SESSION = 256;
const MAX_TITLE_CHARS = 1_000;

export class ToolCallBook {
  private readonly sessions = new Map<string, Map<string, KnownToolCall>>();

  constructor(private readonly capacity = MAX_TOOL_CALLS_PER_SESSION) {}

  /** Starts keeping tool calls for a session; updates for other sessions are ignored. */
  open(sessionId: string): void {
    if (!this.sessions.has(sessionId)) this.sessions.set(sessionId, new Map());
  }

  close(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  // Merges a tool_call or tool_call_update into what is known of that tool call.
  record(sessionId: string, update: RawSessionUpdate): void {
    const calls = this.sessions.get(sessionId);
    const u = update as Record<string, unknown>;
    if (!calls) return;
    if (
      u["sessionUpdate"] !== "tool_call" &&
      u["sessionUpdate"] !== "tool_call_update"
    )
      return;
    const id = u["toolCallId"];
    if (typeof id !== "string") return;
    const known = calls.get(id) ?? {};
    calls.delete(id); // re-inserted last: the most recently touched are kept longest
    if (typeof u["kind"] === "string") known.kind = u["kind"];
    if (typeof u["title"] === "string")
      known.title = u["title"].slice(0, MAX_TITLE_CHARS);
    const subjects = subjectsOf(u as Partial<ToolCallUpdate>);
    if (subjects.paths.length > 0 || subjects.commands.length > 0)
      known.subjects = known.subjects
        ? mergeSubjects(known.subjects, subjects)
        : subjects;
    calls.set(id, known);
    if (calls.size > this.capacity) calls.delete(calls.keys().next().value!);
  }

  get(sessionId: string, toolCallId: string): KnownToolCall | undefined {
    return this.sessions.get(sessionId)?.get(toolCallId);
  }
}
