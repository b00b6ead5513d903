// Turning the ledger back into what an agent needs: a title, and a transcript to prime a fresh
// agent session (what editors are shown is wire-updates.ts).
import type { LedgerEvent } from "./ports.js";

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
