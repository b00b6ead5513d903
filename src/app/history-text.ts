// A session's history as a person reads it (`sessions show`, with or without --hub).
import { queueText } from "./queue-text.js";
import type { ShownItem } from "./sessions.js";
import { ownMetaOf } from "../shared/hub-extension.js";

const SPEAKER: Record<string, string> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

// The hub user who sent a replayed prompt chunk, if one is recorded.
export function authorOf(item: ShownItem): string | undefined {
  const { author } = ownMetaOf(item.meta);
  return typeof author === "string" && author ? author : undefined;
}

// "alice> " for a hub user's prompt, else "user: " / "agent: " / "thought: ".
function speakerOf(item: ShownItem): string | undefined {
  const who = SPEAKER[String(item.update["sessionUpdate"])];
  const author = authorOf(item);
  if (who === "user" && author) return `${author}> `;
  return who === undefined ? undefined : `${who}: `;
}

// The history as a person reads it: consecutive chunks joined into one paragraph per speaker
// (a hub user's prompts under their name), tool calls and other updates one line each.
export function readable(items: ShownItem[]): string[] {
  const lines: string[] = [];
  let speaker = "";
  for (const item of items) {
    if (item.interrupted) {
      lines.push(interruptedLine(item.interrupted.node));
      speaker = "";
      continue;
    }
    const u = item.update;
    const kind = String(u["sessionUpdate"]);
    const queued = queueText(item.meta);
    if (queued !== undefined) {
      lines.push(queued);
      speaker = "";
      continue;
    }
    const who = speakerOf(item);
    if (who) {
      const content = u["content"] as
        { type?: string; text?: string } | undefined;
      const text =
        content?.type === "text"
          ? (content.text ?? "")
          : `[${content?.type ?? "?"}]`;
      if (who === speaker) lines[lines.length - 1] += text;
      else lines.push(`${who}${text}`);
      speaker = who;
      continue;
    }
    speaker = "";
    if (kind === "tool_call" || kind === "tool_call_update") {
      lines.push(
        `  [tool] ${String(u["title"] ?? u["toolCallId"])} ${u["status"] ? `(${String(u["status"])})` : ""}`.trimEnd(),
      );
    } else lines.push(`  [${kind}]`);
  }
  return lines.map((l) => l.trimEnd());
}

// A turn whose runner died mid-turn: not a cancel, and what the agent did before is unknown.
function interruptedLine(node: string | undefined): string {
  const where = node ? ` (node ${node} stopped while it ran)` : "";
  return `  [turn interrupted: outcome unknown${where}; the agent may have acted before it stopped]`;
}
