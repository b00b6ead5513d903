// What the ledger says about a session for clients of the hub: the session/updates after a
// cursor (each with its sequence number), and the recorded turn a prompt's idempotency key
// names, so that a prompt re-sent after a reconnect is answered without running it again.
import { withSeq } from "./attachments.js";
import { noticeParams, type NoticePayload } from "../engine/notices.js";
import type { LedgerEvent, StoredEvent } from "../engine/ports.js";
import { toEvent } from "../engine/stored-events.js";
import { Note, stampedUpdateText } from "./frames.js";
import { authorMeta } from "./watch.js";
import { ownMetaOf } from "../shared/hub-extension.js";

type Params = Record<string, unknown>;

export interface FeedItem {
  seq: number;
  params: Params;
}

// The session/update params a client sees for each event after `afterSeq`, in order.
export function updatesAfter(
  sessionId: string,
  events: LedgerEvent[],
  afterSeq: number,
): FeedItem[] {
  const out: FeedItem[] = [];
  for (const event of events) {
    if (event.seq <= afterSeq) continue;
    for (const item of feedItems(event))
      out.push(feedItem(sessionId, event, item));
  }
  return out;
}

// One session/update a client sees for an event, stamped with the event's seq.
function feedItem(
  sessionId: string,
  event: LedgerEvent,
  item: { update: unknown; meta?: Params },
): FeedItem {
  const params = {
    sessionId,
    update: item.update,
    ...(item.meta ? { _meta: item.meta } : {}),
  };
  return { seq: event.seq, params: withSeq(params, event.seq) };
}

/**
 * The notes of a catch-up (what a client missed after `afterSeq`), read as stored: a stored
 * update's frame is its stored text with the session id and seq put in (as live updates are,
 * frames.ts), not parsed into params and serialized again per client; its params are made only
 * for a client that asks (Streamable HTTP). A damaged row is reported and left out.
 */
export function catchUpNotes(
  sessionId: string,
  stored: StoredEvent[],
  afterSeq: number,
  onDamaged: (seq: number) => void,
): Note[] {
  const notes: Note[] = [];
  for (const row of stored) {
    if (row.seq <= afterSeq) continue;
    const event = toEvent(row);
    if (!event) onDamaged(row.seq);
    else if (event.kind === "update")
      notes.push(storedUpdateNote(sessionId, row, event));
    else
      for (const item of feedItems(event))
        notes.push(
          new Note("session/update", feedItem(sessionId, event, item).params),
        );
  }
  return notes;
}

// A stored update's note: its frame from the stored text when that can be spliced.
function storedUpdateNote(
  sessionId: string,
  row: StoredEvent,
  event: LedgerEvent,
): Note {
  const [item] = feedItems(event);
  const params = () => feedItem(sessionId, event, item!).params;
  const text = stampedUpdateText(sessionId, row.text, row.seq, event.payload);
  return new Note("session/update", params, text);
}

function feedItems(event: LedgerEvent): { update: unknown; meta?: Params }[] {
  if (event.kind === "prompt") {
    const blocks = (event.payload["prompt"] as unknown[] | undefined) ?? [];
    const meta = authorMeta(event.payload["author"])._meta;
    return blocks.map((content) => ({
      update: { sessionUpdate: "user_message_chunk", content },
      ...(meta ? { meta } : {}),
    }));
  }
  // A hub client is shown acphub's notices as agent text on a line of its own (notices.ts).
  if (event.kind === "notice") {
    const shown = noticeParams(
      event.payload as unknown as NoticePayload,
      false,
    );
    return [{ update: shown["update"], meta: shown["_meta"] as Params }];
  }
  if (event.kind !== "update") return [];
  const meta = event.payload["_meta"] as Params | undefined;
  return [{ update: event.payload["update"], ...(meta ? { meta } : {}) }];
}

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
      const { stopReason, error } = event.payload as {
        stopReason?: string;
        error?: string;
      };
      return { promptSeq, stopReason, error };
    }
  }
  return { promptSeq };
}
