// The released terminals' output the hub keeps for its clients stays bounded: the tail of each
// output past the size cap (marked truncated), the oldest terminals dropped past the count cap,
// and one session never reads another's.
import { describe, expect, it } from "vitest";
import {
  ARCHIVED_OUTPUT_CHARS,
  ARCHIVED_TERMINALS,
  TerminalArchive,
} from "../../src/host/terminal-archive.js";

describe("TerminalArchive", () => {
  it("keeps the tail of a long output, marked truncated and released", () => {
    const a = new TerminalArchive();
    const output = "x".repeat(ARCHIVED_OUTPUT_CHARS) + "END";
    a.keep("term-1", "s1", { output, truncated: false });
    const kept = a.get("s1", "term-1")!;
    expect(kept.output.length).toBe(ARCHIVED_OUTPUT_CHARS);
    expect(kept.output.endsWith("END")).toBe(true);
    expect(kept).toMatchObject({ truncated: true, released: true });
  });

  it("drops the oldest past the count cap; another session reads nothing", () => {
    const a = new TerminalArchive();
    for (let i = 0; i <= ARCHIVED_TERMINALS; i++)
      a.keep(`term-${i}`, "s1", { output: String(i), truncated: false });
    expect(a.get("s1", "term-0")).toBeUndefined();
    expect(a.get("s1", "term-1")?.output).toBe("1");
    expect(a.get("s2", "term-1")).toBeUndefined();
  });
});
