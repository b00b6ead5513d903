// The tests' `until`: it returns once its condition holds, and a wait that never ends fails
// naming the condition (CI stop 47 hung 90 s on one and said only "Test timed out").
import { describe, expect, it } from "vitest";
import { until } from "./hub.js";

describe("until", () => {
  it("returns once the condition holds, sync or async", async () => {
    let polls = 0;
    await until(() => ++polls === 3);
    expect(polls).toBe(3);
    await until(async () => ++polls === 5);
    expect(polls).toBe(5);
  });

  it("fails after its bound with the condition's source", async () => {
    const started = Date.now();
    await expect(until(() => "never".length === 0, 100)).rejects.toThrow(
      'until: not true after 0.1 s: () => "never".length === 0',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});
