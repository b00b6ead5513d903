// A WebSocket text frame as a server sends it (RFC 6455 §5.2: FIN set, no extension bits, no
// mask), header and payload in one buffer: byte for byte what `ws` writes for `send(text)` on a
// connection without compression (the hub's server offers none). A relayed update's frame is
// made once and shared by every client it goes to; `ws` made a header per client and wrote the
// two as separate chunks. A stored update stamped with its seq that goes to one client is
// written from its parts straight into its socket's buffer (`writeStampedFrame`): no frame made.

const FIN_TEXT = 0x81;
const COMMA = 0x2c;

/** The header's size for a payload of `length` bytes. */
export function headerSize(length: number): number {
  return length < 126 ? 2 : length < 0x10000 ? 4 : 10;
}

// Writes the header of a text frame of `length` payload bytes at `at`; returns where the
// payload starts.
function writeHeader(buffer: Buffer, at: number, length: number): number {
  buffer[at] = FIN_TEXT;
  if (length < 126) {
    buffer[at + 1] = length;
    return at + 2;
  }
  if (length < 0x10000) {
    buffer[at + 1] = 126;
    buffer.writeUInt16BE(length, at + 2);
    return at + 4;
  }
  buffer[at + 1] = 127;
  buffer.writeUInt32BE(Math.floor(length / 0x100000000), at + 2);
  buffer.writeUInt32BE(length >>> 0, at + 6);
  return at + 10;
}

/** The whole text frame of `text` (UTF-8). */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const frame = Buffer.allocUnsafe(headerSize(length) + length);
  frame.write(text, writeHeader(frame, 0, length), "utf8");
  return frame;
}

/** The payload bytes of a stamped update's frame: `head` (ending with a comma), the stored
 *  text of `textBytes` bytes without its braces, and `tail` (ASCII). */
export function stampedPayload(
  head: Buffer,
  textBytes: number,
  tail: string,
): number {
  return head.length + textBytes - 2 + tail.length;
}

/**
 * Writes at `at` the text frame of a stamped update (engine/wire-updates.ts `stampedText`) of
 * `payload` bytes (`stampedPayload`), room for it made by the caller: the head, the stored text
 * written over the head's closing comma with its `{` turned back into that comma, then the tail
 * written over the text's `}` (the tail starts with a comma). Returns where the frame ends.
 */
export function writeStampedFrame(
  buffer: Buffer,
  at: number,
  payload: number,
  head: Buffer,
  text: string,
  tail: string,
): number {
  const start = writeHeader(buffer, at, payload);
  head.copy(buffer, start);
  const textAt = start + head.length - 1;
  const textEnd = textAt + buffer.write(text, textAt, "utf8");
  buffer[textAt] = COMMA;
  buffer.write(tail, textEnd - 1, "latin1");
  return start + payload;
}
