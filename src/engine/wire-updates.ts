// The one conversion of stored events into what clients see: session/update notifications.
// Live, replay (session/load), a hub client's catch-up and history pages, and a cluster's feed
// all go through it. A stored update's params are its stored text, spliced into the frame and
// never parsed; a prompt becomes user_message_chunk updates with its author; a notice the form
// the editor takes (notices.ts). Every stored text is JSON.stringify output (the relay's, or the
// ledger's for an object), masked inside its strings; PostgreSQL's json column keeps it as is.
import type { Params } from "../protocol/raw.js";
import type { ReplayPart, StoredEvent } from "./ledger-port.js";
import { noticeParams, type NoticePayload } from "./notices.js";
import { parseObject } from "./stored-events.js";
import { queueEventParams } from "./queued-prompts.js";
import { OWN_META_KEY, withOwnMeta } from "../shared/hub-extension.js";

/**
 * One update an event shows: its params without the session id, as the stored JSON text (an
 * update, sent as stored) or as built (a prompt's chunks, a notice).
 */
export type Shown = string | Params;

/** A prompt's `_meta` on its chunks: `{acphub: {author}}` when a hub user sent it (issue 22). */
export function authorMeta(author: unknown): Params | undefined {
  return typeof author === "string" && author
    ? withOwnMeta(undefined, { author })
    : undefined;
}

/** A prompt's blocks as the user_message_chunk updates every client sees, live or replayed. */
export function promptUpdates(
  blocks: readonly unknown[],
  author: unknown,
): Params[] {
  const meta = authorMeta(author);
  return blocks.map((content) => ({
    update: { sessionUpdate: "user_message_chunk", content },
    ...(meta ? { _meta: meta } : {}),
  }));
}

/**
 * The updates a stored event shows, in order: none for kinds no client sees as updates (and
 * for an update with nothing in it); undefined for a damaged row. A notice in the form the
 * editor takes (`asNotice`; hub clients never do), as it was shown live. `asText`: a prompt of
 * one block as text (splicedPrompt), for a caller that sends it as it is.
 */
export function shownUpdates(
  event: StoredEvent,
  asNotice: boolean,
  asText = false,
): Shown[] | undefined {
  if (event.kind === "update") {
    if (event.text === "{}") return [];
    return isJsonObjectText(event.text) ? [event.text] : undefined;
  }
  if (event.kind === "prompt_queued" || event.kind === "prompt_dequeued") {
    const payload = parseObject(event.text);
    const shown = payload && queueEventParams(event.kind, payload, asNotice);
    return shown ? [shown] : undefined;
  }
  if (event.kind !== "notice" && event.kind !== "prompt") return [];
  const payload = parseObject(event.text);
  if (!payload) return undefined;
  if (event.kind === "notice")
    return [noticeParams(payload as unknown as NoticePayload, asNotice)];
  const blocks = payload["prompt"];
  if (!Array.isArray(blocks)) return [];
  const spliced = asText ? splicedPrompt(event.text, payload) : undefined;
  return spliced ? [spliced] : promptUpdates(blocks, payload["author"]);
}

const PROMPT_HEAD = '{"prompt":[';

// The update of a prompt of one block and nothing else, its block spliced from the stored text:
// that text is JSON.stringify output, so its block's text is what writing the parsed block again
// gives, which costs about what parsing did (1.5 ms for a prompt holding a file of 700 KB).
function splicedPrompt(text: string, payload: Params): string | undefined {
  const blocks = payload["prompt"] as unknown[];
  if (
    blocks.length !== 1 ||
    Object.keys(payload).length !== 1 ||
    !text.startsWith(PROMPT_HEAD) ||
    !text.endsWith("]}")
  )
    return undefined;
  const block = text.slice(PROMPT_HEAD.length, -2);
  return `{"update":{"sessionUpdate":"user_message_chunk","content":${block}}}`;
}

// A JSON object's text as JSON.stringify writes it: braces at its very ends.
function isJsonObjectText(text: string): boolean {
  return text.length >= 2 && text[0] === "{" && text[text.length - 1] === "}";
}

/** Frame heads made so far, by session id, as text and as UTF-8 (each cleared when it grows
 *  past HEADS_KEPT). */
const heads = new Map<string, string>();
const headBytes = new Map<string, Buffer>();
const HEADS_KEPT = 4096;

/** The start of a session/update frame for a session, up to its params' first member (it ends
 *  with a comma). */
export function frameHead(sessionId: string): string {
  let head = heads.get(sessionId);
  if (head === undefined) {
    if (heads.size >= HEADS_KEPT) heads.clear();
    head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},`;
    heads.set(sessionId, head);
  }
  return head;
}

/** frameHead as UTF-8. */
export function frameHeadBytes(sessionId: string): Buffer {
  let bytes = headBytes.get(sessionId);
  if (bytes === undefined) {
    if (headBytes.size >= HEADS_KEPT) headBytes.clear();
    bytes = Buffer.from(frameHead(sessionId));
    headBytes.set(sessionId, bytes);
  }
  return bytes;
}

/** The newline-terminated frame of one update, without a seq (an editor's: stdio). */
export function updateFrame(head: string, shown: Shown): string {
  const text = typeof shown === "string" ? shown : JSON.stringify(shown);
  return `${head}${text.slice(1)}}\n`;
}

/** A stored update to be sent stamped with its seq (`stampedText`), its frame not made yet. */
export interface StampedUpdate {
  sessionId: string;
  /** The stored text: a JSON object's, with no `_meta`. */
  text: string;
  seq: number;
}

/**
 * The stored update `text` of a session as a StampedUpdate, or undefined when the params have a
 * `_meta` of their own (`hasMeta`; by default any `"_meta"` key in the text): merging into it
 * needs the object.
 */
export function stamped(
  sessionId: string,
  text: string,
  seq: number,
  hasMeta = text.includes('"_meta"'),
): StampedUpdate | undefined {
  return hasMeta || text.length <= 2 ? undefined : { sessionId, text, seq };
}

/** What follows a stamped update's text (its closing brace replaced): the seq and the braces
 *  that close `_meta`, the params and the frame. ASCII. */
export function stampTail(seq: number): string {
  return `,"_meta":{"${OWN_META_KEY}":{"seq":${seq}}}}}`;
}

/**
 * The frame (no newline) of a stored update stamped with its seq: the stored text with the
 * session id put in front and `_meta.acphub.seq` after, exactly what JSON.stringify gives for
 * `withSeq({sessionId, ...params}, seq)`.
 */
export function stampedText(s: StampedUpdate): string {
  return `${frameHead(s.sessionId)}${s.text.slice(1, -1)}${stampTail(s.seq)}`;
}

/** The params of a session/update with the hub's sequence number in `_meta.acphub.seq`. */
export function withSeq(params: Params, seq: number): Params {
  return { ...params, _meta: withOwnMeta(params["_meta"], { seq }) };
}

/** The params of one update a client sees (for a client that takes objects), seq stamped in
 *  when given. */
export function updateParams(
  sessionId: string,
  shown: Shown,
  seq?: number,
): Params {
  const body = typeof shown === "string" ? (parseObject(shown) ?? {}) : shown;
  const params = { sessionId, ...body };
  return seq === undefined ? params : withSeq(params, seq);
}

/** The params (without the session id) of every update stored events show, in order. */
export function shownParams(
  stored: readonly StoredEvent[],
  asNotice = false,
): Params[] {
  return stored.flatMap((event) =>
    (shownUpdates(event, asNotice) ?? []).map((s) =>
      typeof s === "string" ? (parseObject(s) ?? {}) : s,
    ),
  );
}

/** The params, seq stamped, of every update the events after `afterSeq` show (hub pages). */
export function stampedParams(
  sessionId: string,
  stored: readonly StoredEvent[],
  afterSeq = 0,
): Params[] {
  return stored.flatMap((event) =>
    event.seq <= afterSeq
      ? []
      : (shownUpdates(event, false) ?? []).map((s) =>
          updateParams(sessionId, s, event.seq),
        ),
  );
}

const CHUNK_BYTES = 1 << 20;

/** A replay (session/load) as newline-terminated frames, in chunks of about a mebibyte; a
 *  string part is frames already made (ReplayPart), sent as it is. */
export function replayChunks(
  sessionId: string,
  events: readonly ReplayPart[],
  asNotice = false,
): string[] {
  const head = frameHead(sessionId);
  const chunks: string[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const event of events) {
    if (typeof event === "string") {
      parts.push(event);
      size += event.length;
    } else
      for (const shown of shownUpdates(event, asNotice, true) ?? []) {
        const frame = updateFrame(head, shown);
        parts.push(frame);
        size += frame.length;
      }
    if (size >= CHUNK_BYTES) {
      chunks.push(parts.join(""));
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) chunks.push(parts.join(""));
  return chunks;
}
