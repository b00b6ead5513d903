// The ledger's append histogram (src/server/counted-histogram.ts) shows itself as prom-client's
// Histogram does for the same observations, counted several at once; reset empties it.
import { Histogram, Registry } from "prom-client";
import { expect, it } from "vitest";
import { CountedHistogram } from "../../src/server/counted-histogram.js";

const BOUNDS = [0.001, 0.01, 0.1];

it("shows the lines prom-client's Histogram shows for the same observations", async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const counted = new CountedHistogram("t_seconds", "Time", BOUNDS, [ours]);
  const plain = new Histogram({
    name: "t_seconds",
    help: "Time",
    buckets: BOUNDS,
    registers: [theirs],
  });
  // On a bound, between bounds, past the last; several at once.
  for (const [value, count] of [
    [0.001, 1],
    [0.005, 3],
    [0.1, 2],
    [0.25, 4],
    [0, 1],
  ] as const) {
    counted.observe(value, count);
    for (let i = 0; i < count; i++) plain.observe(value);
  }
  const text = await ours.metrics();
  expect(text).toBe(await theirs.metrics());
  expect(text).toContain('t_seconds_bucket{le="0.01"} 5\n');
  expect(text).toContain('t_seconds_bucket{le="+Inf"} 11\n');
  expect(text).toContain("t_seconds_count 11\n");

  ours.resetMetrics();
  expect(await ours.metrics()).toContain("t_seconds_count 0\n");
  expect(await ours.metrics()).toContain("t_seconds_sum 0\n");
});
