// A prompt sent while its session's turn ran, with `_meta.acphub.queue: true`, waits for its own
// turn (hub/prompt-queue.ts). Its life is in the ledger — `prompt_queued` when it joins the line,
// `prompt_dequeued` when it leaves it (started, revoked, dropped) — and every client is shown each
// as one of acphub's notices whose `_meta.acphub` carries the facts (`queued`, `dequeued`), for
// live, replay and the cluster's feed alike (wire-updates.ts).
import type { Params } from "../protocol/raw.js";
import { withOwnMeta } from "../shared/hub-extension.js";
import { noticeParams } from "./notices.js";

/** Why a queued prompt left the line. */
export type DequeueReason = "started" | "revoked" | "dropped";

/** A `prompt_queued` event's payload. */
export interface QueuedPayload {
  queueId: string;
  prompt: unknown[];
  /** The hub user who queued it (none on a hub without users). */
  author?: string;
}

/** A `prompt_dequeued` event's payload. */
export interface DequeuedPayload {
  queueId: string;
  reason: DequeueReason;
  /** Who revoked it. */
  by?: string;
}

const PREVIEW_CHARS = 80;

// The prompt's text, shortened, so a notice says which prompt it is about.
function preview(prompt: unknown[]): string {
  const text = prompt
    .map((b) => {
      const block = b as { type?: unknown; text?: unknown };
      return block.type === "text" && typeof block.text === "string"
        ? block.text
        : `[${String(block.type)}]`;
    })
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > PREVIEW_CHARS
    ? `${text.slice(0, PREVIEW_CHARS - 1)}…`
    : text;
}

// What a client reads of a queued prompt joining the line.
function queuedTitle(p: QueuedPayload): string {
  const who = p.author ? `${p.author} queued` : "queued";
  return `${who} a prompt (${p.queueId}), to run when the turn ends: "${preview(p.prompt)}"`;
}

// What a client reads of a queued prompt leaving the line.
function dequeuedTitle(p: DequeuedPayload): string {
  if (p.reason === "started") return `the queued prompt ${p.queueId} runs now`;
  if (p.reason === "revoked")
    return `the queued prompt ${p.queueId} was revoked${p.by ? ` by ${p.by}` : ""}; it will not run`;
  return `the queued prompt ${p.queueId} was dropped: the hub stopped before it ran; it will not run (send it again if it is still wanted)`;
}

/** The session/update params (without sessionId) a stored queue event shows. */
export function queueEventParams(
  kind: "prompt_queued" | "prompt_dequeued",
  payload: Params,
  asNotice: boolean,
): Params | undefined {
  if (typeof payload["queueId"] !== "string") return undefined;
  if (kind === "prompt_queued") {
    const p = payload as unknown as QueuedPayload;
    if (!Array.isArray(p.prompt)) return undefined;
    const shown = noticeParams(
      { severity: "info", title: queuedTitle(p) },
      asNotice,
    );
    const queued = {
      queueId: p.queueId,
      prompt: p.prompt,
      ...(p.author ? { author: p.author } : {}),
    };
    return { ...shown, _meta: withOwnMeta(shown["_meta"], { queued }) };
  }
  const p = payload as unknown as DequeuedPayload;
  const shown = noticeParams(
    { severity: "info", title: dequeuedTitle(p) },
    asNotice,
  );
  const dequeued = {
    queueId: p.queueId,
    reason: p.reason,
    ...(p.by ? { by: p.by } : {}),
  };
  return { ...shown, _meta: withOwnMeta(shown["_meta"], { dequeued }) };
}
