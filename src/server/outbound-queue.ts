// The outbound queue of one hub client: notifications handed to its connection and not yet
// written. Updates are relayed a committed batch at a time (group commit), so a client that
// reads fine can be handed hundreds at once: that burst is not slowness. A client is too slow
// when its queue has stayed over the bound with nothing written for `stallMs`, or when the queue
// reaches a hard ceiling whatever it writes.

/** How long a queue over its bound may go without one message written. */
export const DEFAULT_STALL_MS = 1000;

export class OutboundQueue {
  private queued = 0;
  private lastWritten = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private slow = false;
  private readonly ceiling: number;

  constructor(
    private readonly bound: number,
    /** Called once when the client is judged too slow (the caller disconnects it). */
    private readonly onSlow: (queued: number) => void,
    private readonly stallMs = DEFAULT_STALL_MS,
  ) {
    this.ceiling = Math.max(bound * 10, 4096);
  }

  /** Whether one more notification may be queued; false once the client is too slow. */
  admit(): boolean {
    if (this.slow) return false;
    if (this.queued < this.bound) return true;
    if (this.queued >= this.ceiling || this.stalled()) return this.giveUp();
    this.timer ??= setTimeout(() => this.recheck(), this.stallMs).unref();
    return true;
  }

  /** Counts a notification in until its write settles. */
  count(sent: Promise<void>): Promise<void> {
    return sent.finally(this.add());
  }

  /** Counts a notification in; the function returned counts it out once its write settled. */
  add(): () => void {
    if (this.queued === 0) this.lastWritten = Date.now();
    this.queued += 1;
    return this.settled;
  }

  // One notification's write settled (one function for them all: nothing allocated per write).
  private readonly settled = (): void => {
    this.queued -= 1;
    this.lastWritten = Date.now();
  };

  // Nothing was written for stallMs while over the bound.
  private stalled(): boolean {
    return Date.now() - this.lastWritten >= this.stallMs;
  }

  // A queue that stays over its bound is judged again when the grace has passed.
  private recheck(): void {
    this.timer = undefined;
    if (this.slow || this.queued < this.bound) return;
    if (this.stalled()) this.giveUp();
    else this.timer = setTimeout(() => this.recheck(), this.stallMs).unref();
  }

  private giveUp(): false {
    if (!this.slow) {
      this.slow = true;
      if (this.timer) clearTimeout(this.timer);
      this.onSlow(this.queued);
    }
    return false;
  }
}
