// What the ledger says of a session's queued prompts (prompt-queue.ts): which still wait, what
// became of one, and the answer of one that never ran.
import type { LedgerPort } from "../engine/ports.js";
import type { DequeueReason } from "../engine/queued-prompts.js";
import { parseObject } from "../engine/stored-events.js";
import { withOwnMeta } from "../shared/hub-extension.js";

type Params = Record<string, unknown>;

// The answer of a queued prompt that never ran.
export function leftAnswer(
  queueId: string,
  left: { reason: DequeueReason; by?: string | undefined },
): Params {
  return {
    stopReason: "cancelled",
    _meta: withOwnMeta(undefined, {
      queueId,
      revoked: true,
      dequeued: {
        queueId,
        reason: left.reason,
        ...(left.by ? { by: left.by } : {}),
      },
    }),
  };
}

// What the ledger says became of a queued prompt: its last `prompt_dequeued` reason, "queued"
// while it has none, undefined when it was never queued in the session.
export async function queueFate(
  ledger: LedgerPort,
  sessionId: string,
  queueId: string,
): Promise<DequeueReason | "queued" | undefined> {
  let fate: DequeueReason | "queued" | undefined;
  for (const [kind, payload] of await queueEvents(ledger, sessionId)) {
    if (payload["queueId"] !== queueId) continue;
    fate =
      kind === "prompt_queued"
        ? "queued"
        : (payload["reason"] as DequeueReason);
  }
  return fate;
}

// The queue ids the ledger holds as queued and not yet dequeued, in order.
export async function openQueued(
  ledger: LedgerPort,
  sessionId: string,
): Promise<string[]> {
  const open = new Set<string>();
  for (const [kind, payload] of await queueEvents(ledger, sessionId)) {
    const queueId = payload["queueId"];
    if (typeof queueId !== "string") continue;
    if (kind === "prompt_queued") open.add(queueId);
    else open.delete(queueId);
  }
  return [...open];
}

// The session's queue events in order, parsed (no other event is).
async function queueEvents(
  ledger: LedgerPort,
  sessionId: string,
): Promise<[string, Params][]> {
  const out: [string, Params][] = [];
  for (const e of await ledger.read(sessionId)) {
    if (e.kind !== "prompt_queued" && e.kind !== "prompt_dequeued") continue;
    const payload = parseObject(e.text);
    if (payload) out.push([e.kind, payload]);
  }
  return out;
}
