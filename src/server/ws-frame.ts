// A WebSocket text frame as a server sends it (RFC 6455 §5.2: FIN set, no extension bits, no
// mask), header and payload in one buffer: byte for byte what `ws` writes for `send(text)` on a
// connection without compression (the hub's server offers none). A relayed update's frame is
// made once and shared by every client it goes to; `ws` made a header per client and wrote the
// two as separate chunks.

const FIN_TEXT = 0x81;

/** The whole text frame of `text` (UTF-8). */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const head = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + length);
  frame[0] = FIN_TEXT;
  if (head === 2) frame[1] = length;
  else if (head === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 0x100000000), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(text, head, "utf8");
  return frame;
}
