import { describe, expect, it } from "vitest";
import { Sender } from "ws";
import { textFrame } from "../../src/server/ws-frame.js";

// What `ws` writes for `send(text)` from a server without compression: its header and payload.
function wsFrame(text: string): Buffer {
  const parts = Sender.frame(Buffer.from(text), {
    fin: true,
    mask: false,
    opcode: 1,
    readOnly: false,
    rsv1: false,
  } as Parameters<typeof Sender.frame>[1]) as Buffer[];
  return Buffer.concat(parts);
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
