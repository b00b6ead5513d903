// Compaction plans: merged text is exactly the concatenation (escapes included), chunks in any
// key order merge, and anything that differs besides the text starts a new run.
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/gateway/ledger-port.js";
import { planCompaction } from "../../src/ledger/compaction.js";

const stored = (seq: number, payload: unknown): StoredEvent => ({
  seq,
  kind: "update",
  text: JSON.stringify(payload),
  at: 0,
});
const chunk = (text: string, extra: Record<string, unknown> = {}) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    ...extra,
  },
});

describe("planCompaction", () => {
  it("joins text with quotes, backslashes, newlines and non-ASCII exactly", () => {
    const parts = ['say "hi" ', "c:\\path\\", "\n", "é ✓ \u0001", '\\"'];
    const runs = planCompaction(parts.map((t, i) => stored(i + 1, chunk(t))));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ fromSeq: 1, lastSeq: 5 });
    expect(JSON.parse(runs[0]!.text)).toEqual(chunk(parts.join("")));
  });

  it("merges chunks whose keys come in another order, and keeps their other fields", () => {
    const odd = (text: string) => ({
      update: {
        content: { text, type: "text" },
        sessionUpdate: "agent_thought_chunk",
        messageId: "m",
      },
    });
    const runs = planCompaction([
      stored(1, odd("a")),
      stored(2, odd("b")),
      stored(4, odd("c")),
    ]);
    expect(runs).toEqual([expect.objectContaining({ fromSeq: 1, lastSeq: 4 })]);
    expect(JSON.parse(runs[0]!.text)).toEqual(odd("abc"));
  });

  it("splits runs where messageId, _meta, kind or content type differ, and at other events", () => {
    const runs = planCompaction([
      stored(1, chunk("a", { messageId: "1" })),
      stored(2, chunk("b", { messageId: "2" })),
      stored(3, { ...chunk("c", { messageId: "2" }), _meta: { k: 1 } }),
      stored(4, {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "image", data: "x" },
        },
      }),
      stored(5, chunk("d")),
      { seq: 6, kind: "permission", text: "{}", at: 0 },
      stored(7, chunk("e")),
    ]);
    expect(runs).toEqual([]);
  });
});
