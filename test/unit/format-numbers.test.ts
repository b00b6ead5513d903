// Numbers as people read them (src/shared/format-numbers.ts), and `chat`'s end-of-turn line
// using them: never "0.0009900000000000002 USD".
import { describe, expect, it } from "vitest";
import { formatCost, formatCount } from "../../src/shared/format-numbers.js";
import { makeStyle } from "../../src/cli/tty/ansi.js";
import { ttyRenderer } from "../../src/cli/tty/renderer.js";

describe("numbers for people", () => {
  it("costs: cents from one cent up, two significant digits below; other units after the number", () => {
    expect(formatCost(0.0009900000000000002, "USD")).toBe("$0.00099");
    expect(formatCost(0.0412, "USD")).toBe("$0.04");
    expect(formatCost(12.5, "USD")).toBe("$12.50");
    expect(formatCost(0, "USD")).toBe("$0.00");
    expect(formatCost(1.25, "EUR")).toBe("€1.25");
    expect(formatCost(0.5, "credits")).toBe("0.50 credits");
  });

  it("counts: grouped, shortened past a million", () => {
    expect(formatCount(18240)).toBe("18,240");
    expect(formatCount(1_250_000)).toBe("1.3M");
    expect(formatCount(2_000_000)).toBe("2M");
  });

  it("chat's end-of-turn line shows tokens and cost formatted", () => {
    let printed = "";
    const out = {
      columns: 80,
      rows: 24,
      write: (t: string) => ((printed += t), true),
    } as unknown as NodeJS.WriteStream;
    const r = ttyRenderer(out, makeStyle(false));
    r.startTurn();
    r.event({
      type: "session_update",
      update: {
        sessionUpdate: "usage_update",
        used: 12345,
        size: 200000,
        cost: { amount: 0.0009900000000000002, currency: "USD" },
      },
    } as never);
    r.endTurn({ stopReason: "end_turn" });
    expect(printed).toContain("context 12,345/200,000 · $0.00099 so far");
    expect(printed).not.toContain("0.0009900000000000002");
  });
});
