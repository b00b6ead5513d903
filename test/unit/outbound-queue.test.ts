// A hub client's outbound queue: a burst over the bound (a committed batch fanned out at once)
// is taken while the client keeps reading; a client that stops reading is let go after the
// stall grace; the hard ceiling holds whatever it reads.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OutboundQueue } from "../../src/server/outbound-queue.js";

// A write that completes when `done()` is called.
function pendingWrite() {
  let done = () => {};
  const sent = new Promise<void>((resolve) => (done = resolve));
  return { sent, done };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("OutboundQueue", () => {
  it("takes a burst over its bound while writes keep completing", async () => {
    const slow = vi.fn();
    const q = new OutboundQueue(50, slow, 1000);
    const writes = Array.from({ length: 500 }, () => pendingWrite());
    for (const w of writes) {
      expect(q.admit()).toBe(true);
      void q.count(w.sent);
    }
    for (const w of writes) {
      w.done();
      await vi.advanceTimersByTimeAsync(5);
    }
    await vi.advanceTimersByTimeAsync(5000);
    expect(slow).not.toHaveBeenCalled();
    expect(q.admit()).toBe(true);
  });

  it("lets a client go once its queue stays over the bound with nothing written", async () => {
    const slow = vi.fn();
    const q = new OutboundQueue(50, slow, 1000);
    for (let i = 0; i < 60; i++) {
      q.admit();
      void q.count(pendingWrite().sent);
    }
    expect(slow).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1001);
    expect(slow).toHaveBeenCalledTimes(1);
    expect(q.admit()).toBe(false);
  });

  it("refuses past the hard ceiling even while writes progress", () => {
    const slow = vi.fn();
    const q = new OutboundQueue(10, slow, 1000);
    let admitted = 0;
    while (q.admit() && admitted < 10_000) {
      admitted += 1;
      void q.count(pendingWrite().sent);
    }
    expect(admitted).toBe(4096);
    expect(slow).toHaveBeenCalledWith(4096);
  });
});
