// Turning the ledger back into what an editor or an agent needs: session/update notifications
// for replay, a title, and a transcript to prime a fresh agent session.
import { noticeParams, type NoticePayload } from "./notices.js";
import type { LedgerEvent } from "./ports.js";

export interface ReplayItem {
  update: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

// Every update the editor saw, in order, with each prompt as user_message_chunk updates and each
// notice in the form the editor takes (`asNotice`).
export function replayItems(
  events: LedgerEvent[],
  asNotice = false,
): ReplayItem[] {
  const items: ReplayItem[] = [];
  for (const event of events) {
    if (event.kind === "prompt") {
      const meta = authorMetaOf(event.payload["author"]);
      for (const content of (event.payload["prompt"] as unknown[]) ?? []) {
        items.push({
          update: { sessionUpdate: "user_message_chunk", content },
          ...(meta ? { meta } : {}),
        });
      }
    } else if (event.kind === "notice") {
      const shown = noticeParams(
        event.payload as unknown as NoticePayload,
        asNotice,
      );
      const meta = shown["_meta"] as Record<string, unknown> | undefined;
      items.push({
        update: shown["update"] as Record<string, unknown>,
        ...(meta ? { meta } : {}),
      });
    } else if (event.kind === "update") {
      const meta = event.payload["_meta"] as
        Record<string, unknown> | undefined;
      items.push({
        update: event.payload["update"] as Record<string, unknown>,
        ...(meta ? { meta } : {}),
      });
    }
  }
  return items;
}

/** A prompt's `_meta` in replay: `{acphub: {author}}` when a hub user sent it (issue 22). */
export function authorMetaOf(
  author: unknown,
): Record<string, unknown> | undefined {
  return typeof author === "string" && author
    ? { acphub: { author } }
    : undefined;
}

function textOf(content: unknown): string {
  const c = content as { type?: string; text?: unknown } | undefined;
  return c?.type === "text" && typeof c.text === "string" ? c.text : "";
}

/** The first prompt's text, shortened, for sessions the agent never titled. */
export function titleFromPrompt(prompt: unknown[]): string | null {
  const text = prompt.map(textOf).join(" ").replace(/\s+/g, " ").trim();
  if (!text) return null;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

// The conversation as plain text, for an agent that cannot load or resume the session.
export function transcript(events: LedgerEvent[], maxChars = 200_000): string {
  const lines: string[] = [];
  let speaker = "";
  const say = (who: string, text: string) => {
    if (!text) return;
    if (who !== speaker) {
      lines.push(`\n${who}: `);
      speaker = who;
    }
    lines.push(text);
  };
  for (const event of events) {
    if (event.kind === "prompt") {
      for (const block of (event.payload["prompt"] as unknown[]) ?? [])
        say("User", textOf(block));
      speaker = "";
    } else if (event.kind === "update") {
      const update = event.payload["update"] as {
        sessionUpdate?: string;
        content?: unknown;
        title?: string;
      };
      if (update.sessionUpdate === "agent_message_chunk")
        say("Assistant", textOf(update.content));
      else if (update.sessionUpdate === "tool_call")
        say("Assistant", `\n[tool: ${update.title ?? ""}]\n`);
    }
  }
  const body = lines.join("").trim();
  return body.length > maxChars
    ? `…${body.slice(body.length - maxChars)}`
    : body;
}

export function primingBlock(events: LedgerEvent[]): {
  type: "text";
  text: string;
} {
  return {
    type: "text",
    text:
      "[acphub] This session was restored after the agent lost it. The conversation so far:\n\n" +
      `${transcript(events)}\n\n[acphub] Continue from here. The new message follows.\n\n`,
  };
}
