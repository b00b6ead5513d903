// The PostgreSQL replay's rows made from what its statement returns (ledger/postgres/pg-replay.ts):
// the aggregates come in whatever order the server's plan gives them, the other rows too.
import { describe, expect, it } from "vitest";
import { pgReplayRows } from "../../src/ledger/postgres/pg-replay.js";

const text = (i: number) => `{"update":{"n":${i}}}`;
// A frame: the head, the text without its first brace, the brace that closes the params.
const frame = (i: number) => `H"update":{"n":${i}}}}\n`;

// The statement's rows: the other rows [seq, kind, text, at, null], the aggregates
// [null, null, null, bucket, elements joined by \x02], where \x01 marks an other row.
const served = (rows: unknown[][]) => ({ arrays: async () => rows });

describe("pgReplayRows", () => {
  it("puts the aggregates in bucket order and the other rows between their ranges", async () => {
    const rows = await pgReplayRows(
      served([
        [null, null, null, "2", [text(512), "\x01", text(514)].join("\x02")],
        ["513", "notice", "{}", "9", null],
        [null, null, null, "0", [text(1), text(2)].join("\x02")],
        ["3", "prompt", "{}", "7", null],
        [null, null, null, "1", ["\x01", text(256)].join("\x02")],
      ]),
      "s",
      "H",
    );
    expect(rows).toEqual([
      [null, null, null, null, frame(1) + frame(2)],
      ["3", "prompt", "{}", "7", frame(256) + frame(512)],
      ["513", "notice", "{}", "9", frame(514)],
    ]);
  });

  it("gives a merged run's frame without its chunk list", async () => {
    const merged = '{"update":{"t":"ab"},"_acphubChunks":[10,5,1,1]}';
    const rows = await pgReplayRows(
      served([[null, null, null, "0", merged]]),
      "s",
      "H",
    );
    expect(rows).toEqual([
      [null, null, null, null, 'H"update":{"t":"ab"}}}\n'],
    ]);
  });

  it("refuses marks that do not match the other rows", async () => {
    await expect(
      pgReplayRows(served([[null, null, null, "0", "\x01"]]), "s", "H"),
    ).rejects.toThrow("0 rows but 1 marks");
  });
});
