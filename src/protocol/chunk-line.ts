// The hot line of a streaming agent, read without JSON.parse: a text chunk's session/update in
// the key order every SDK writes. Its update keeps the agent's text of it (`updateText`), so that
// the relay stores and sends it without serializing it again. Only a text whose escapes are the
// ones JSON.stringify itself writes is taken, so that the kept text is exactly what serializing
// the parsed update would give (secret masking and replay see the same bytes either way); any
// other line, or any doubt, returns undefined and the caller parses it.
import type { SessionNotification } from "@agentclientprotocol/sdk";

const LINE_HEAD =
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
const UPDATE_KEY = '","update":';
/** The updates that carry a text chunk (a reply, a thought, the user's words). */
export const CHUNK_KINDS = [
  "agent_message_chunk",
  "agent_thought_chunk",
  "user_message_chunk",
] as const;
/** A text chunk's update as every SDK serializes it, up to its text's first character. */
export const textChunkHead = (kind: string): string =>
  `{"sessionUpdate":"${kind}","content":{"type":"text","text":"`;
const UPDATE_HEADS = CHUNK_KINDS.map(textChunkHead);
const LINE_TAIL = '"}}}}';

// The escapes JSON.stringify writes (besides \u00XX for the other control characters).
const SHORT_ESCAPES = new Set([0x22, 0x5c, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const SHORT_ESCAPED = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

type ChunkKind = (typeof CHUNK_KINDS)[number];

/**
 * A chunk update read from a line. The agent's text of it is a private field: a copy of the
 * object (spread, structuredClone) is a plain object without it, so a changed copy is serialized.
 */
class ReadChunk {
  readonly #text: string;
  constructor(
    readonly sessionUpdate: ChunkKind,
    readonly content: { type: "text"; text: string },
    text: string,
  ) {
    this.#text = text;
  }

  static textOf(update: object): string | undefined {
    return #text in update ? (update as ReadChunk).#text : undefined;
  }
}

/** Whether `line` holds `head` at `at` (compared as a slice: startsWith is several times slower
 *  for a head of 80 characters). */
export function holds(line: string, head: string, at: number): boolean {
  return line.slice(at, at + head.length) === head;
}

// Whether text[from, to) is a JSON string's body in JSON.stringify's own escapes: -1 when not,
// else 1 when it holds an escape, 0 when it is the string itself.
function stringBody(text: string, from: number, to: number): number {
  let escaped = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code < 0x20) return -1;
    if (code !== 0x5c) continue;
    escaped = 1;
    if (++i >= to) return -1;
    if (SHORT_ESCAPES.has(text.charCodeAt(i))) continue;
    if (text.charCodeAt(i) !== 0x75 || i + 4 >= to) return -1;
    const hex = text.slice(i + 1, i + 5);
    const value = /^00[01][0-9a-f]$/.test(hex) ? parseInt(hex, 16) : -1;
    if (value < 0 || SHORT_ESCAPED.has(value)) return -1;
    i += 4;
  }
  return escaped;
}

// The session id's end (its closing quote), when it needs no escapes.
function idEnd(text: string, from: number): number {
  const end = text.indexOf('"', from);
  if (end <= from) return -1;
  for (let i = from; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c || code < 0x20) return -1;
  }
  return end;
}

/**
 * A text chunk's session/update line (trimmed) as its notification, the update's text kept for
 * `updateText`; undefined for any other line.
 */
export function readChunkLine(line: string): SessionNotification | undefined {
  if (!line.endsWith(LINE_TAIL) || !holds(line, LINE_HEAD, 0)) return undefined;
  const idStop = idEnd(line, LINE_HEAD.length);
  if (idStop < 0 || !holds(line, UPDATE_KEY, idStop)) return undefined;
  const updateAt = idStop + UPDATE_KEY.length;
  let kind = 0;
  while (
    kind < CHUNK_KINDS.length &&
    !holds(line, UPDATE_HEADS[kind]!, updateAt)
  )
    kind++;
  if (kind === CHUNK_KINDS.length) return undefined;
  const bodyAt = updateAt + UPDATE_HEADS[kind]!.length;
  const bodyEnd = line.length - LINE_TAIL.length;
  const escaped = stringBody(line, bodyAt, bodyEnd);
  if (escaped < 0) return undefined;
  const body = line.slice(bodyAt, bodyEnd);
  const text = escaped ? (JSON.parse(`"${body}"`) as string) : body;
  const update = new ReadChunk(
    CHUNK_KINDS[kind]!,
    { type: "text", text },
    line.slice(updateAt, line.length - 2),
  );
  return { sessionId: line.slice(LINE_HEAD.length, idStop), update };
}

/** The agent's text of an update read by readChunkLine (never of a copy of it). */
export function updateText(update: object): string | undefined {
  return ReadChunk.textOf(update);
}
