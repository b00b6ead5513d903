// What the ledger says about a session's turns for clients of the hub: where a read ended, and
// the recorded turn a prompt's idempotency key names, so that a prompt re-sent after a reconnect
// is answered without running it again. (What a client is shown of stored events: frames.ts.)
import type { LedgerEvent } from "../engine/ports.js";
import { ownMetaOf } from "../shared/hub-extension.js";

/** The last sequence number among events read after `afterSeq` (`afterSeq` for none). */
export function lastSeq(events: { seq: number }[], afterSeq = 0): number {
  return events.at(-1)?.seq ?? afterSeq;
}

/** The idempotency key a prompt carries in `_meta.acphub.idempotencyKey`, if any. */
export function idempotencyKeyOf(meta: unknown): string | undefined {
  const key: unknown = ownMetaOf(meta).idempotencyKey;
  return typeof key === "string" && key !== "" ? key : undefined;
}

export interface RecordedTurn {
  /** The prompt event's sequence number. */
  promptSeq: number;
  /** The recorded stop reason; undefined while no turn_end follows the prompt. */
  stopReason?: string;
  error?: string;
  /** The turn's runner died mid-turn: its outcome is unknown (recorded as cancelled). */
  interrupted?: boolean;
  /** The node that ran it, when known. */
  node?: string;
}

// The turn a prompt with this idempotency key started, as the ledger recorded it.
export function recordedTurn(
  events: LedgerEvent[],
  key: string,
): RecordedTurn | undefined {
  const index = events.findIndex(
    (e) => e.kind === "prompt" && idempotencyKeyOf(e.payload["meta"]) === key,
  );
  if (index < 0) return undefined;
  const promptSeq = events[index]!.seq;
  for (const event of events.slice(index + 1)) {
    if (event.kind === "prompt") break;
    if (event.kind === "turn_end") {
      const { stopReason, error, interrupted, node } = event.payload as {
        stopReason?: string;
        error?: string;
        interrupted?: unknown;
        node?: unknown;
      };
      return {
        promptSeq,
        stopReason,
        error,
        // `true` before issue 37: a runner's death then too.
        ...(interrupted ? { interrupted: true } : {}),
        ...(typeof node === "string" ? { node } : {}),
      };
    }
  }
  return { promptSeq };
}
