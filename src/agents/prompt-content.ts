// What goes into a turn (prompt blocks) and what comes out (text deltas, the result).
import { withoutOwnMeta } from "../protocol/own-meta.js";
import type { PromptResponse } from "@agentclientprotocol/sdk";
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";

/** Plain text, or content blocks (kinds this SDK version does not know pass through). */
export type PromptInput = string | RawContentBlock | RawContentBlock[];

export function toBlocks(input: PromptInput): RawContentBlock[] {
  if (typeof input === "string") return [{ type: "text", text: input }];
  return Array.isArray(input) ? input : [input];
}

/** The text an event adds to the agent's reply ("" for anything else). */
export function textDelta(event: RunEvent): string {
  if (event.type !== "session_update") return "";
  const update = event.update as {
    sessionUpdate: string;
    content?: { type?: string; text?: unknown };
  };
  if (
    update.sessionUpdate !== "agent_message_chunk" ||
    update.content?.type !== "text"
  )
    return "";
  return typeof update.content.text === "string" ? update.content.text : "";
}

// Keeps the whole response (`_meta`, unstable `usage`) next to the fields callers need.
export function toResult(
  response: PromptResponse,
  agentIsHub = false,
): PromptResult {
  // acphub's own `_meta` keys (a replayed answer, …) are never another agent's (issue 34).
  const raw = (
    agentIsHub ? response : withoutOwnMeta(response)
  ) as PromptResponse & {
    usage?: Record<string, unknown> | null;
  };
  return {
    stopReason: raw.stopReason,
    usage: raw.usage,
    response: raw as Record<string, unknown>,
  };
}
