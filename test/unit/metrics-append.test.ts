// /metrics times every ledger append (acphub_ledger_append_seconds): appends made together are
// timed as a group, so each one is still counted once, failed ones too, and each with the time
// until the group's last append settled.
import { expect, it } from "vitest";
import type { AppendSink, LedgerPort } from "../../src/engine/ports.js";
import { createMetrics } from "../../src/server/metrics.js";

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("counts each append once, with the time until its group settled", async () => {
  const settles: (() => void)[] = [];
  const inner = {
    append: (_id: string, _kind: string, text: string) =>
      new Promise<number>((resolve, reject) =>
        settles.push(() =>
          text === "bad" ? reject(new Error("disk full")) : resolve(1),
        ),
      ),
  } as unknown as LedgerPort;
  const m = createMetrics(() => 0);
  const ledger = m.timeLedger(inner);
  const first = ["a", "bad", "c"].map((t) =>
    ledger.append("s", "update", t).catch(() => -1),
  );
  await later(60);
  for (const settle of settles.splice(0)) settle();
  expect(await Promise.all(first)).toEqual([1, -1, 1]);
  const second = ledger.append("s", "update", "d");
  settles.splice(0)[0]!();
  await second;
  await later(0);
  const text = await m.registry.metrics();
  expect(text).toContain("acphub_ledger_append_seconds_count 4");
  // three appends of ≥ 60 ms, one of about none
  expect(text).toMatch(/acphub_ledger_append_seconds_bucket\{le="0.01"\} 1\n/);
  expect(text).toMatch(/acphub_ledger_append_seconds_bucket\{le="0.1"\} 4\n/);
  // Three times the 60 ms wait, less a margin: a timer may fire a fraction of a millisecond
  // before the clock it is compared with says 60 ms (once measured 59.95 ms).
  const sum = Number(/acphub_ledger_append_seconds_sum (\S+)/.exec(text)![1]);
  expect(sum).toBeGreaterThanOrEqual(0.17);
});

it("times the relay's appends told through sinks (appendTo) as it times append", async () => {
  const queued: ((seq: number) => void)[] = [];
  const waiting: (() => void)[] = [];
  const inner = {
    append: () => Promise.resolve(1),
    appendTo: (_id: string, _kind: string, _text: string, sink: AppendSink) =>
      queued.push((seq) => sink.stored(seq)),
    afterAppends: (then: () => void) => waiting.push(then),
  } as unknown as LedgerPort;
  const m = createMetrics(() => 0);
  const ledger = m.timeLedger(inner);
  const seqs: number[] = [];
  const into = { stored: (seq: number) => seqs.push(seq), failed: () => {} };
  ledger.appendTo!("s", "update", "{}", into);
  ledger.appendTo!("s", "update", "{}", into);
  await later(30);
  queued.forEach((store, i) => store(i + 1));
  expect(waiting).toHaveLength(1); // one callback for the group
  waiting[0]!();
  expect(seqs).toEqual([1, 2]);
  const text = await m.registry.metrics();
  expect(text).toContain("acphub_ledger_append_seconds_count 2");
  expect(text).toMatch(/acphub_ledger_append_seconds_bucket\{le="0.01"\} 0\n/);
});
