// Screen rows are counted as the terminal wraps: by display width, not string length.
import { describe, expect, it } from "vitest";
import { displayWidth, screenRows } from "../../src/cli/tty/width.js";

describe("display width and screen rows", () => {
  it("counts wide characters twice, combining marks and escapes not at all", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("漢字")).toBe(4);
    expect(displayWidth("🚀")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("\x1b[1mbold\x1b[22m")).toBe(4);
  });

  it("wraps like a terminal", () => {
    expect(screenRows("", 10)).toBe(1);
    expect(screenRows("x".repeat(10), 10)).toBe(1); // exactly full: no new row yet
    expect(screenRows("x".repeat(11), 10)).toBe(2);
    expect(screenRows(`${"x".repeat(9)}漢`, 10)).toBe(2); // a wide char never splits
    expect(screenRows("漢".repeat(5), 10)).toBe(1);
    expect(screenRows("\tab", 10)).toBe(1);
    expect(screenRows("\t\tab", 10)).toBe(2);
  });
});
