import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { textFrame } from "../../src/server/ws-frame.js";

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
