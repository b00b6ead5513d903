// The sends of one session relay, each after its own ledger append and after every send pushed
// before it. It was a promise chain (four promises and their closures per update, each seen by
// AsyncLocalStorage's hooks when the hub has them on); here an update is one `then` on its append
// and a place in a queue that is drained, in order, as appends settle.
type Send = (stored: unknown) => unknown;

/** One pushed event: its append's outcome once settled, and what to send then. */
class Entry {
  state: "waiting" | "stored" | "failed" = "waiting";
  outcome: unknown;
  constructor(
    readonly send: Send | undefined,
    readonly inTurn: boolean,
  ) {}
}

export interface OrderedSendsOwner {
  /** True once a failure stops every send after it. */
  stopped(): boolean;
  /** An append failed (`inTurn`: pushed while a turn ran). */
  appendFailed(error: unknown, inTurn: boolean): void;
  /** A send threw or its promise rejected. */
  sendFailed(error: unknown): void;
}

export class OrderedSends {
  private queue: (Entry | undefined)[] = [];
  private head = 0;
  /** A send returned a promise: the queue waits for it. */
  private blocked = false;
  private pushed = 0;
  private done = 0;
  private waiters: { upto: number; resolve: () => void }[] = [];

  constructor(private readonly owner: OrderedSendsOwner) {}

  /** Events pushed and not yet sent (or dropped). */
  get inFlight(): number {
    return this.pushed - this.done;
  }

  /** Sends `send(value)` once `stored` resolved to value and everything before it was sent. */
  add<T>(
    stored: Promise<T>,
    send: ((stored: T) => unknown) | undefined,
    inTurn: boolean,
  ): void {
    const entry = new Entry(send as Send | undefined, inTurn);
    this.queue.push(entry);
    this.pushed += 1;
    stored.then(
      (value) => this.settle(entry, "stored", value),
      (error: unknown) => this.settle(entry, "failed", error),
    );
  }

  /** Resolves once everything added so far has been sent (or dropped). */
  settled(): Promise<void> {
    if (this.done >= this.pushed && !this.blocked) return Promise.resolve();
    const upto = this.pushed;
    return new Promise((resolve) => this.waiters.push({ upto, resolve }));
  }

  private settle(entry: Entry, state: Entry["state"], outcome: unknown): void {
    entry.state = state;
    entry.outcome = outcome;
    this.drain();
  }

  // Sends from the head of the queue while its appends have settled, in order.
  private drain(): void {
    while (!this.blocked && this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (entry.state === "waiting") break;
      this.queue[this.head] = undefined;
      this.head += 1;
      this.done += 1;
      if (entry.state === "failed")
        this.owner.appendFailed(entry.outcome, entry.inTurn);
      else if (entry.send && !this.owner.stopped())
        this.run(entry.send, entry.outcome);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    this.wake();
  }

  // One send; a promise it returns holds the queue until it settles.
  private run(send: Send, value: unknown): void {
    let result: unknown;
    try {
      result = send(value);
    } catch (error) {
      this.owner.sendFailed(error);
      return;
    }
    if (!isThenable(result)) return;
    this.blocked = true;
    result.then(
      () => this.unblock(),
      (error: unknown) => {
        this.owner.sendFailed(error);
        this.unblock();
      },
    );
  }

  private unblock(): void {
    this.blocked = false;
    this.drain();
  }

  // Resolves the settled() calls whose events have all been sent.
  private wake(): void {
    if (this.blocked) return;
    while (this.waiters.length > 0 && this.waiters[0]!.upto <= this.done)
      this.waiters.shift()!.resolve();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
