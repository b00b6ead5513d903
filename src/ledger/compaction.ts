// Compaction of a finished turn: a streamed reply arrives as hundreds of small chunks; once the
// turn is over, runs of consecutive text chunks that differ only in their text become one event
// with the text concatenated. Everything else (tool calls, plans, chunks whose messageId, _meta
// or annotations differ) keeps its place, so a replay shows the same history.
import type { StoredEvent } from "../gateway/ledger-port.js";

const CHUNK_KINDS = new Set([
  "agent_message_chunk",
  "agent_thought_chunk",
  "user_message_chunk",
]);

export interface CompactionPlan {
  /** Events whose text becomes the merged run (the last event of each run). */
  rewrite: { seq: number; text: string }[];
  /** Events merged into a later one. */
  remove: number[];
}

interface Chunk {
  seq: number;
  key: string;
  payload: { update: { content: { text: string } } };
}

// A text chunk with the identity it must share with its neighbours to be merged with them.
function asChunk(event: StoredEvent): Chunk | undefined {
  if (event.kind !== "update") return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(event.text);
  } catch {
    return undefined;
  }
  const update = (payload as { update?: Record<string, unknown> } | null)
    ?.update;
  const content = update?.["content"] as Record<string, unknown> | undefined;
  if (
    !update ||
    !CHUNK_KINDS.has(update["sessionUpdate"] as string) ||
    content?.["type"] !== "text" ||
    typeof content["text"] !== "string"
  )
    return undefined;
  const key = JSON.stringify({
    ...(payload as object),
    update: { ...update, content: { ...content, text: "" } },
  });
  return { seq: event.seq, key, payload: payload as Chunk["payload"] };
}

// Plans the merge of the runs in `events` (one turn's events, in order).
export function planCompaction(events: StoredEvent[]): CompactionPlan {
  const plan: CompactionPlan = { rewrite: [], remove: [] };
  let run: Chunk[] = [];
  const close = () => {
    if (run.length > 1) {
      const last = run[run.length - 1] as Chunk;
      last.payload.update.content.text = run
        .map((c) => c.payload.update.content.text)
        .join("");
      plan.rewrite.push({ seq: last.seq, text: JSON.stringify(last.payload) });
      plan.remove.push(...run.slice(0, -1).map((c) => c.seq));
    }
    run = [];
  };
  for (const event of events) {
    const chunk = asChunk(event);
    if (!chunk || (run.length > 0 && run[0]?.key !== chunk.key)) close();
    if (chunk) run.push(chunk);
  }
  close();
  return plan;
}
