// Compaction plans: merged text is exactly the concatenation (escapes included), chunks in any
// key order merge, anything that differs besides the text starts a new run, and a run merged
// earlier in the turn merges again as the chunks it was made of.
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/engine/ledger-port.js";
import {
  MAX_RUN_CHUNKS,
  planCompaction,
  planUpdates,
  storedRunText,
  type MergedRun,
} from "../../src/ledger/compaction.js";
import {
  chunkList,
  eachChunk,
  readStored,
  withChunks,
} from "../../src/ledger/run-cut.js";

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
// A stored row [seq, text] of one chunk.
const plainRow = (seq: number, text: string, extra = {}): unknown[] => [
  seq,
  JSON.stringify(chunk(text, extra)),
];
// The row a compaction stores for `texts` streamed from seq `from` on: kept at the last seq, with
// its chunk list.
function mergedRow(from: number, texts: string[], extra = {}): unknown[] {
  const [run] = planCompaction(
    texts.map((t, i) => stored(from + i, chunk(t, extra))),
  );
  return [run!.lastSeq, withChunks(run!.text, { ...run!, firstSeq: from })];
}

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
    const listed = mergedRow(4, ["p", "q"]);
    const rows: unknown[][] = [
      plainRow(1, "a"),
      plainRow(2, "b"),
      listed, // a run merged earlier, of seqs 4 and 5 (its list cut, as a read gives it)
      plainRow(6, "c"),
      [7, '{"update":{"sessionUpdate":"agent_message_chunk"'], // damaged
      plainRow(8, "d"),
      plainRow(9, "e"),
      [10, 42], // not text
      plainRow(11, "f"),
    ];
    const runs = planUpdates(rows, 0);
    expect(runs.map((r) => [r.fromSeq, r.lastSeq])).toEqual([
      [1, 2],
      [4, 6],
      [8, 9],
    ]);
    expect(JSON.parse(runs[1]!.text)).toEqual(chunk("pqc"));
    const events = rows
      .filter(([, text]) => typeof text === "string" && text.endsWith("}"))
      .map(([seq, text]) => ({
        ...stored(Number(seq), {}),
        text: readStored(text as string, Number(seq), 0),
      }));
    // A read hides the chunk list: planCompaction takes the merged run for one chunk.
    expect(planCompaction(events)).toEqual([
      runs[0],
      { ...runs[1], fromSeq: 5, lengths: [2, 1] },
      runs[2],
    ]);
  });
});

describe("planUpdates with runs merged earlier in the turn", () => {
  // What a reader whose cursor is `cursor` reads of `run` once it is stored with its list.
  const restAfter = (run: MergedRun, cursor: number) =>
    JSON.parse(
      readStored(
        withChunks(run.text, { ...run, firstSeq: run.fromSeq }),
        run.lastSeq,
        cursor,
      ),
    ) as unknown;

  it("joins merged rows with consecutive ranges and the chunks after them, their lists into one", () => {
    const parts = ["a", 'b"', "c\\n", "é", "e", "f", "g"];
    const rows = [
      mergedRow(1, parts.slice(0, 2)),
      mergedRow(3, parts.slice(2, 5)),
      plainRow(6, parts[5]!),
      plainRow(7, parts[6]!),
    ];
    const runs = planUpdates(rows, 0);
    expect(runs).toEqual([expect.objectContaining({ fromSeq: 1, lastSeq: 7 })]);
    expect(runs[0]!.lengths).toHaveLength(parts.length);
    expect(JSON.parse(runs[0]!.text)).toEqual(chunk(parts.join("")));
    for (let cursor = 1; cursor < 7; cursor++)
      expect(restAfter(runs[0]!, cursor)).toEqual(
        chunk(parts.slice(cursor).join("")),
      );
  });

  it("keeps merged rows apart at a gap in seqs or where their identity differs", () => {
    const gap = planUpdates(
      [mergedRow(1, ["a", "b"]), mergedRow(4, ["c", "d"]), plainRow(6, "e")],
      0,
    );
    expect(gap.map((r) => [r.fromSeq, r.lastSeq, r.lengths])).toEqual([
      [4, 6, [1, 1, 1]],
    ]);
    const m = { messageId: "m" };
    const other = planUpdates(
      [
        mergedRow(1, ["a", "b"]),
        mergedRow(3, ["c", "d"], m),
        plainRow(5, "e", m),
      ],
      0,
    );
    expect(other.map((r) => [r.fromSeq, r.lastSeq])).toEqual([[3, 5]]);
    expect(JSON.parse(other[0]!.text)).toEqual(chunk("cde", m));
  });

  it("counts a merged row's chunks toward MAX_RUN_CHUNKS, closing the run before a row that would pass it", () => {
    const texts = (n: number) => Array.from({ length: n }, () => "x");
    const full = planUpdates(
      [
        mergedRow(1, texts(600)),
        mergedRow(601, texts(MAX_RUN_CHUNKS - 600)),
        plainRow(MAX_RUN_CHUNKS + 1, "y"),
        plainRow(MAX_RUN_CHUNKS + 2, "y"),
      ],
      0,
    );
    expect(full.map((r) => [r.fromSeq, r.lastSeq, r.lengths.length])).toEqual([
      [1, MAX_RUN_CHUNKS, MAX_RUN_CHUNKS],
      [MAX_RUN_CHUNKS + 1, MAX_RUN_CHUNKS + 2, 2],
    ]);
    const over = planUpdates(
      [
        plainRow(1, "y"),
        mergedRow(2, texts(MAX_RUN_CHUNKS - 1)),
        mergedRow(MAX_RUN_CHUNKS + 1, texts(2)),
        plainRow(MAX_RUN_CHUNKS + 3, "y"),
      ],
      0,
    );
    expect(over.map((r) => [r.fromSeq, r.lastSeq, r.lengths.length])).toEqual([
      [1, MAX_RUN_CHUNKS, MAX_RUN_CHUNKS],
      [MAX_RUN_CHUNKS + 1, MAX_RUN_CHUNKS + 3, 3],
    ]);
  });

  it("takes a merged row without a fitting list (masked, or lengths that do not add up) for one chunk", () => {
    const [masked] = planCompaction(
      ["d", "e", "f"].map((t, i) => stored(i + 4, chunk(t))),
    );
    const listed = mergedRow(1, ["a", "b"]);
    const bad = mergedRow(9, ["h", "i"]);
    bad[1] = (bad[1] as string).replace(/,1,1\]\}$/, ",1,0]}");
    const runs = planUpdates(
      [
        listed,
        plainRow(3, "c"),
        [6, masked!.text], // seqs 4 to 6, its list dropped
        plainRow(7, "g"),
        bad,
        plainRow(11, "j"),
      ],
      0,
    );
    expect(runs.map((r) => [r.fromSeq, r.lastSeq, r.lengths])).toEqual([
      [1, 3, [1, 1, 1]],
      [6, 7, [3, 1]],
      [10, 11, [2, 1]],
    ]);
  });

  it("leaves alone a merged row that the cursor afterSeq lies inside", () => {
    const rows = [
      mergedRow(1, ["a", "b", "c"]),
      plainRow(4, "d"),
      plainRow(5, "e"),
    ];
    expect(planUpdates(rows, 2).map((r) => [r.fromSeq, r.lastSeq])).toEqual([
      [4, 5],
    ]);
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

describe("chunkList", () => {
  const listed = (list: string) =>
    `{"update":{"content":{"text":"abcdef"}},"_acphubChunks":[${list}]}`;

  it("reads the list withChunks wrote", () => {
    const text = withChunks('{"update":{"content":{"text":"abcdef"}}}', {
      bodyStart: 30,
      firstSeq: 7,
      lengths: [2, 4],
    });
    expect(chunkList(text)).toEqual({
      bodyStart: 30,
      firstSeq: 7,
      lengths: [2, 4],
    });
  });

  it("refuses a list acphub did not write: empty parts, signs, spaces, exponents, huge numbers, no first seq, lengths past the text", () => {
    for (const list of [
      "30,,2",
      "30,7,",
      "",
      "30,-7,2",
      "30, 7,2",
      "30,7,1e1",
      "30,7,0x2",
      "30,1234567890123456,2",
      "30",
      "30,7,2,99",
    ])
      expect(chunkList(listed(list)), list).toBeUndefined();
    expect(chunkList(listed("30,7,2,4"))).toEqual({
      bodyStart: 30,
      firstSeq: 7,
      lengths: [2, 4],
    });
  });
});

describe("eachChunk (a merged run read back as its chunks)", () => {
  const texts = ['a "quoted"\n', "b\\", "ünï"].map((t) =>
    JSON.stringify(chunk(t, { messageId: "m1" })),
  );
  const [run] = planUpdates(
    texts.map((text, i) => [5 + i, text]),
    0,
  );
  const merged = storedRunText(run!, (t) => t);

  it("gives each chunk's stored text byte for byte, at its own seq, after the cursor", () => {
    expect(eachChunk(merged, 7, 0)).toEqual([
      [5, texts[0]],
      [6, texts[1]],
      [7, texts[2]],
    ]);
    expect(eachChunk(merged, 7, 5)).toEqual([
      [6, texts[1]],
      [7, texts[2]],
    ]);
    expect(eachChunk(merged, 7, 7)).toEqual([]);
  });

  it("reads a row without a chunk list, or with one that does not end at its seq, whole", () => {
    expect(eachChunk(texts[0]!, 5, 0)).toBeUndefined();
    expect(eachChunk(merged, 8, 0)).toBeUndefined();
  });
});
