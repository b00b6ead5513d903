// How `acphub sessions show` reads a queued prompt's notices (issue 37): one line each, from the
// facts in their `_meta.acphub` (`queued`, `dequeued`), instead of the agent text they carry.
import { ownMetaOf } from "../shared/hub-extension.js";

const GONE: Record<string, string> = {
  started: "started",
  revoked: "revoked",
  dropped: "dropped: the hub stopped before it ran",
};

// The prompt's text blocks, joined.
function textOf(prompt: unknown[]): string {
  return prompt
    .map((b) => {
      const block = b as { type?: unknown; text?: unknown };
      return typeof block.text === "string"
        ? block.text
        : `[${String(block.type)}]`;
    })
    .join(" ");
}

/** The line of a queued prompt's notice (`[queued q-… by alice] text`), if the item is one. */
export function queueText(meta: unknown): string | undefined {
  const { queued, dequeued } = ownMetaOf(meta);
  if (queued && Array.isArray(queued.prompt)) {
    const by = queued.author ? ` by ${queued.author}` : "";
    return `  [queued ${queued.queueId}${by}] ${textOf(queued.prompt)}`;
  }
  if (!dequeued) return undefined;
  const by =
    dequeued.reason === "revoked" && dequeued.by ? ` by ${dequeued.by}` : "";
  const why = GONE[dequeued.reason] ?? dequeued.reason;
  return `  [queued ${dequeued.queueId} ${why}${by}]`;
}
