// A session relay's sends: each after its own append and after every send pushed before it,
// whatever order the appends settle in; a failed append outside a turn is skipped, one in a turn
// (or a failed send) stops every send after it; settled() waits for what was pushed before it.
import { describe, expect, it } from "vitest";
import { OrderedSends } from "../../src/engine/ordered-sends.js";
import { deferred } from "../../src/shared/abort.js";

const tick = () => new Promise((r) => setImmediate(r));

function harness() {
  const sent: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  const sends = new OrderedSends({
    stopped: () => stopped,
    appendFailed: (error, inTurn) => {
      failures.push(`append ${String(error)} ${inTurn ? "in" : "outside"}`);
      if (inTurn) stopped = true;
    },
    sendFailed: (error) => {
      failures.push(`send ${String(error)}`);
      stopped = true;
    },
  });
  return { sends, sent, failures };
}

describe("a relay's ordered sends", () => {
  it("send in push order when the appends settle out of order", async () => {
    const { sends, sent } = harness();
    const appends = [0, 1, 2, 3].map(() => deferred<number>());
    appends.forEach((a) => sends.add(a.promise, (seq) => sent.push(seq), true));
    const settled = sends.settled();
    appends[2]!.resolve(3);
    appends[1]!.resolve(2);
    await tick();
    expect(sent).toEqual([]);
    appends[0]!.resolve(1);
    await tick();
    expect(sent).toEqual([1, 2, 3]);
    expect(sends.inFlight).toBe(1);
    appends[3]!.resolve(4);
    await settled;
    expect(sent).toEqual([1, 2, 3, 4]);
  });

  it("an append told through its sink sends in push order, after the ledger's call returned", async () => {
    const { sends, sent } = harness();
    const first = deferred<number>();
    sends.add(first.promise, (seq) => sent.push(seq), true);
    const second = sends.sink((seq) => sent.push(seq), true);
    const third = sends.sink((seq) => sent.push(seq), true);
    third.stored(3);
    second.stored(2);
    expect(sent).toEqual([]); // told inside the ledger's commit: nothing sent from there
    await tick();
    expect(sent).toEqual([]);
    first.resolve(1);
    await sends.settled();
    expect(sent).toEqual([1, 2, 3]);
    const failed = sends.sink((seq) => sent.push(seq), false);
    failed.failed(new Error("disk full"));
    await sends.settled();
    expect(sent).toEqual([1, 2, 3]);
    const head = sends.sink((seq) => sent.push(seq), true);
    head.stored(4);
    expect(sent).toEqual([1, 2, 3]); // at the head of the queue, and still not sent from inside
    await sends.settled();
    expect(sent).toEqual([1, 2, 3, 4]);
  });

  it("hold the next send while a send's promise is pending", async () => {
    const { sends, sent } = harness();
    const slow = deferred<void>();
    sends.add(Promise.resolve(1), () => slow.promise, true);
    sends.add(Promise.resolve(2), (seq) => sent.push(seq), true);
    let done = false;
    void sends.settled().then(() => (done = true));
    await tick();
    expect([sent, done]).toEqual([[], false]);
    slow.resolve();
    await tick();
    expect([sent, done]).toEqual([[2], true]);
  });

  it("skip a failed append outside a turn, and stop after one in a turn or a failed send", async () => {
    const { sends, sent, failures } = harness();
    sends.add(Promise.reject(new Error("disk")), () => sent.push(0), false);
    sends.add(Promise.resolve(1), (seq) => sent.push(seq), false);
    sends.add(
      Promise.resolve(2),
      () => {
        throw new Error("socket");
      },
      true,
    );
    sends.add(Promise.resolve(3), (seq) => sent.push(seq), true);
    await sends.settled();
    expect(sent).toEqual([1]);
    expect(failures).toEqual([
      "append Error: disk outside",
      "send Error: socket",
    ]);
  });
});
