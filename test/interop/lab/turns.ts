// Turn helpers for the lab's SDK editor: prompt, collect what streamed, cancel a slow turn.
import { startEditorOn } from "./editor-client.mjs";

export type LabEditor = ReturnType<typeof startEditorOn>;
type Update = Record<string, unknown>;

/** The text of the agent_message_chunk updates among `updates`. */
export function messageText(updates: Update[]): string {
  return messageChunks(updates).join("");
}

/** The agent_message_chunk texts among `updates`, one per chunk. */
export function messageChunks(updates: Update[]): string[] {
  return updates
    .map(
      (u) =>
        u["update"] as
          { sessionUpdate?: string; content?: { text?: string } } | undefined,
    )
    .filter((u) => u?.sessionUpdate === "agent_message_chunk")
    .map((u) => u?.content?.text ?? "");
}

/** Waits until `check` holds, polling; false when it never did within `timeoutMs`. */
export async function until(
  check: () => boolean,
  timeoutMs = 10_000,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** One prompt; the response and the updates that arrived while it ran. */
export async function promptTurn(
  ed: LabEditor,
  sessionId: string,
  text: string,
) {
  const before = ed.updates().length;
  const response = await ed.agent.request<{ stopReason: string }>(
    "session/prompt",
    {
      sessionId,
      prompt: [{ type: "text", text }],
    },
  );
  return { response, updates: ed.updates().slice(before) };
}

/** Starts a slow turn, cancels it once text streams, and returns the prompt's response. */
export async function cancelledTurn(
  ed: LabEditor,
  sessionId: string,
  text: string,
) {
  const before = ed.updates().length;
  const pending = ed.agent.request<{ stopReason: string }>("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  const streaming = await until(
    () => messageText(ed.updates().slice(before)).includes("tick"),
    30_000,
  );
  await ed.agent.notify("session/cancel", { sessionId });
  const response = await pending;
  return { response, streaming };
}

/** Permission questions per tool call id. */
export function questionsPerToolCall(
  permissions: Update[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of permissions) {
    const id = String(
      (p["toolCall"] as { toolCallId?: string } | undefined)?.toolCallId,
    );
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** An update without its session id, for comparing both sides of the hop. */
export function withoutSessionId(params: Update): Update {
  const { sessionId: _drop, ...rest } = params;
  return rest;
}
