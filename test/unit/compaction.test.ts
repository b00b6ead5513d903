// Compaction plans: merged text is exactly the concatenation (escapes included), chunks in any
// key order merge, and anything that differs besides the text starts a new run.
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/engine/ledger-port.js";
import {
  MAX_RUN_CHUNKS,
  planCompaction,
  planUpdates,
} from "../../src/ledger/compaction.js";
import { readStored, withChunks } from "../../src/ledger/run-cut.js";

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
      stored(3, odd("c")),
    ]);
    expect(runs).toEqual([expect.objectContaining({ fromSeq: 1, lastSeq: 3 })]);
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

  it("splits a run at a gap in sequence numbers and past MAX_RUN_CHUNKS chunks", () => {
    const gap = planCompaction([1, 2, 4, 5].map((n) => stored(n, chunk("x"))));
    expect(gap.map((r) => [r.fromSeq, r.lastSeq])).toEqual([
      [1, 2],
      [4, 5],
    ]);
    const long = Array.from({ length: MAX_RUN_CHUNKS + 2 }, (_, i) =>
      stored(i + 1, chunk("y")),
    );
    expect(planCompaction(long).map((r) => r.lengths.length)).toEqual([
      MAX_RUN_CHUNKS,
      2,
    ]);
  });
});

describe("planUpdates (a turn's update rows as stored)", () => {
  it("plans what planCompaction plans from the read: other kinds' gaps and damaged rows end a run, chunk lists are cut", () => {
    const [merged] = planCompaction(
      ["p", "q"].map((t, i) => stored(i + 3, chunk(t))),
    );
    const listed = withChunks(merged!.text, {
      ...merged!,
      firstSeq: merged!.fromSeq,
    });
    const rows: unknown[][] = [
      [1, JSON.stringify(chunk("a"))],
      [2, JSON.stringify(chunk("b"))],
      [4, listed], // a merged run (its list cut, as a read gives it)
      [5, JSON.stringify(chunk("c"))],
      [6, '{"update":{"sessionUpdate":"agent_message_chunk"'], // damaged
      [7, JSON.stringify(chunk("d"))],
      [8, JSON.stringify(chunk("e"))],
      [9, 42], // not text
      [10, JSON.stringify(chunk("f"))],
    ];
    const runs = planUpdates(rows, 0);
    expect(runs.map((r) => [r.fromSeq, r.lastSeq])).toEqual([
      [1, 2],
      [4, 5],
      [7, 8],
    ]);
    expect(JSON.parse(runs[1]!.text)).toEqual(chunk("pqc"));
    const events = rows
      .filter(([, text]) => typeof text === "string" && text.endsWith("}"))
      .map(([seq, text]) => stored(Number(seq), JSON.parse(text as string)));
    events[2] = { ...events[2]!, text: merged!.text };
    expect(planCompaction(events)).toEqual(runs);
  });
});

describe("readStored", () => {
  const [run] = planCompaction(
    ["ab", 'c"', "d"].map((t, i) => stored(i + 10, chunk(t))),
  );
  const text = withChunks(run!.text, { ...run!, firstSeq: run!.fromSeq });

  it("cuts the text of the chunks up to the cursor, and hides the list from every reader", () => {
    expect(JSON.parse(readStored(text, 12, 10))).toEqual(chunk('c"d'));
    expect(JSON.parse(readStored(text, 12, 11))).toEqual(chunk("d"));
    expect(readStored(text, 12, 0)).toBe(run!.text);
    expect(readStored(text, 12, 9)).toBe(run!.text);
    expect(readStored(text, 12, 12)).toBe(run!.text);
  });

  it("gives the whole run when the list is not one acphub wrote", () => {
    const list = `[${run!.bodyStart},10,`;
    const bad = text.replace(list, `${list}-1,`);
    const huge = text.replace(list, `${list}99999,`);
    expect(bad).not.toBe(text);
    expect(readStored(bad, 12, 11)).toBe(run!.text);
    expect(readStored(huge, 12, 11)).toBe(run!.text);
    expect(readStored('{"a":[1]}', 12, 11)).toBe('{"a":[1]}');
  });
});
