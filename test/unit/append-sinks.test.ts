// The relay's appends without a promise each (LedgerPort.appendTo): the group commit tells each
// event's sink its seq once the batch holding it commits, or why it failed; afterQueued calls
// back once everything queued so far has settled; and a ledger wrapper that adds to each
// `append` hides the inner `appendTo`, so that what it adds is not bypassed.
import { describe, expect, it } from "vitest";
import { ledgerWith } from "../../src/engine/events.js";
import type { AppendSink, LedgerPort } from "../../src/engine/ports.js";
import {
  GroupCommit,
  settle,
  type PendingEvent,
} from "../../src/ledger/group-commit.js";
import { deferred } from "../../src/shared/abort.js";

const tick = () => new Promise((r) => setImmediate(r));

function sink(log: string[], name: string): AppendSink {
  return {
    stored: (seq) => log.push(`${name} ${seq}`),
    failed: (error) => log.push(`${name} failed: ${String(error)}`),
  };
}

describe("appends told through sinks", () => {
  it("each sink hears its seq when its batch commits; afterQueued once all queued so far settled", async () => {
    const gate = deferred<void>();
    const batches: PendingEvent[][] = [];
    let next = 1;
    const writer = new GroupCommit(async (batch) => {
      batches.push(batch);
      await gate.promise;
      settle(
        batch,
        batch.map(() => next++),
      );
    });
    const log: string[] = [];
    writer.addTo("s", "update", "{}", sink(log, "a"));
    writer.addTo("s", "update", "{}", sink(log, "b"));
    writer.afterQueued(() => log.push("all settled"));
    await tick();
    expect([batches.length, log]).toEqual([1, []]);
    gate.resolve();
    await writer.drain();
    expect(log).toEqual(["a 1", "b 2", "all settled"]);
    // Nothing queued: at once.
    writer.afterQueued(() => log.push("nothing waits"));
    expect(log.at(-1)).toBe("nothing waits");
  });

  it("afterQueued waits for the batch holding the last event queued before it, not later ones", async () => {
    const gates = [deferred<void>(), deferred<void>()];
    let batches = 0;
    const writer = new GroupCommit(async (batch) => {
      await gates[batches++]!.promise;
      settle(
        batch,
        batch.map((_, i) => i + 1),
      );
    });
    const log: string[] = [];
    writer.addTo("s", "update", "{}", sink(log, "a"));
    writer.afterQueued(() => log.push("after a"));
    await tick(); // a's batch is being written; b waits for the next one
    writer.addTo("s", "update", "{}", sink(log, "b"));
    writer.afterQueued(() => log.push("after b"));
    writer.afterQueued(() => log.push("after b, too"));
    gates[0]!.resolve();
    await tick();
    expect(log).toEqual(["a 1", "after a"]);
    gates[1]!.resolve();
    await writer.drain();
    await tick();
    expect(log).toEqual(["a 1", "after a", "b 1", "after b", "after b, too"]);
  });

  it("a batch that fails tells every sink why, and afterQueued still calls back", async () => {
    const writer = new GroupCommit(() => {
      throw new Error("disk full");
    });
    const log: string[] = [];
    writer.addTo("s", "update", "{}", sink(log, "a"));
    const promised = writer.add("s", "update", "{}").catch(String);
    writer.afterQueued(() => log.push("settled"));
    await writer.drain();
    expect(await promised).toBe("Error: disk full");
    expect(log).toEqual(["a failed: Error: disk full", "settled"]);
  });

  it("a wrapper overriding append hides the inner appendTo; one that does not passes it on", () => {
    const inner = {
      append: () => Promise.resolve(1),
      appendTo: () => undefined,
      afterAppends: () => undefined,
    } as unknown as LedgerPort;
    const closing = ledgerWith(inner, { close: () => Promise.resolve() });
    expect(closing.appendTo).toBeTypeOf("function");
    expect(closing.afterAppends).toBeTypeOf("function");
    const counting = ledgerWith(inner, { append: () => Promise.resolve(2) });
    expect(counting.appendTo).toBeUndefined();
    expect(counting.afterAppends).toBeUndefined();
  });
});
