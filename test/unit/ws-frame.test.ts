import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import {
  headerSize,
  stampedPayload,
  textFrame,
  writeStampedFrame,
} from "../../src/server/ws-frame.js";
import {
  frameHeadBytes,
  stampTail,
  stampedText,
  type StampedUpdate,
} from "../../src/engine/wire-updates.js";

// ws's framing (not in its type declarations, nor in its ES module): one frame's header and payload.
const { Sender } = createRequire(import.meta.url)("ws") as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] };
};

// What `ws` writes for `send(text)` from a server without compression.
function wsFrame(text: string): Buffer {
  const options = { fin: true, mask: false, opcode: 1, readOnly: false };
  return Buffer.concat(Sender.frame(Buffer.from(text), options));
}

describe("textFrame", () => {
  it.each([0, 1, 125, 126, 127, 65535, 65536, 200_000])(
    "is byte for byte what ws sends for a %i-byte text",
    (size) => {
      const text = "x".repeat(size);
      expect(textFrame(text).equals(wsFrame(text))).toBe(true);
    },
  );

  it("counts the payload in UTF-8 bytes, not characters", () => {
    const text = `{"text":"${"é✓🙂".repeat(40)}"}`;
    const frame = textFrame(text);
    expect(frame.equals(wsFrame(text))).toBe(true);
    expect(frame.subarray(4).toString("utf8")).toBe(text);
  });
});

// A stamped update's frame written from its parts into a buffer at `at`, and the end returned.
function written(update: StampedUpdate, at: number) {
  const head = frameHeadBytes(update.sessionId);
  const tail = stampTail(update.seq);
  const payload = stampedPayload(head, Buffer.byteLength(update.text), tail);
  const buffer = Buffer.alloc(at + headerSize(payload) + payload + 8, 0xee);
  const end = writeStampedFrame(buffer, at, payload, head, update.text, tail);
  return { buffer, end };
}

describe("writeStampedFrame", () => {
  const chunk = (text: string) =>
    JSON.stringify({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
      },
    });

  it.each([
    ["a small update", "s1", '{"a":1}', 7, 2],
    ["a chunk", "s1", chunk("hi"), 1, 4],
    ["a 64 KiB chunk", "s1", chunk("x".repeat(65_400)), 65_535, 10],
    ["a 200 KB chunk", "s1", chunk("y".repeat(200_000)), 2 ** 40, 10],
    ["UTF-8 text", "s1", chunk('é ✓ 🙂 \u2028 " \\'), 3, 4],
    ["a session id that JSON escapes", 'hub-"é"\\', chunk("x"), 12, 4],
  ])(
    "writes %s byte for byte as ws sends its frame's text",
    (_, sessionId, text, seq, header) => {
      const update = { sessionId, text, seq };
      const { buffer, end } = written(update, 5);
      const frame = wsFrame(stampedText(update));
      expect(buffer.subarray(5, end).equals(frame)).toBe(true);
      expect(end - 5 - Buffer.byteLength(stampedText(update))).toBe(header);
      // Nothing written before or after it.
      expect([...buffer.subarray(0, 5), ...buffer.subarray(end)]).toEqual(
        Array(buffer.length - frame.length).fill(0xee),
      );
    },
  );
});
