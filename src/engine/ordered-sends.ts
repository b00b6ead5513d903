// The sends of one session relay, each after its own ledger append and after every send pushed
// before it. It was a promise chain (four promises and their closures per update, each seen by
// AsyncLocalStorage's hooks when the hub has them on); here an update is a place in a queue that
// is drained, in order, as appends settle: the append tells its entry (an AppendSink: no promise
// at all) or, for a ledger without `appendTo`, one `then` on its promise does. The queue is a
// list of its entries (each holds the next): an array emptied and refilled changed kind, and V8
// threw the compiled sends away over it (issue 39, fifteenth round).
import type { AppendSink } from "./ports.js";
import { soon } from "../shared/soon.js";

type Send = (stored: unknown) => unknown;

/** One pushed event: its append's outcome once settled, and what to send then. */
class Entry implements AppendSink {
  state: "waiting" | "stored" | "failed" = "waiting";
  outcome: unknown;
  /** The entry pushed after this one. */
  next: Entry | undefined = undefined;
  constructor(
    private readonly sends: OrderedSends,
    readonly send: Send | undefined,
    readonly inTurn: boolean,
  ) {}

  // Told from inside the ledger's commit: the queue is drained in a microtask, out of it.
  stored(seq: number): void {
    this.state = "stored";
    this.outcome = seq;
    this.sends.wake();
  }

  failed(error: unknown): void {
    this.state = "failed";
    this.outcome = error;
    this.sends.wake();
  }
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
  /** The queue's first and last entries (none: undefined). */
  private first: Entry | undefined;
  private last: Entry | undefined;
  /** A send returned a promise: the queue waits for it. */
  private blocked = false;
  private pushed = 0;
  private done = 0;
  /** The settled() calls waiting (none: undefined, so that the drain reads no empty array). */
  private waiters: { upto: number; resolve: () => void }[] | undefined;
  private waking = false;

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
    const entry = this.sink(send as Send | undefined, inTurn);
    stored.then(
      (value) => entry.stored(value as number),
      (error: unknown) => entry.failed(error),
    );
  }

  /** A place for one append told through its sink: `send(seq)` once stored and everything
   *  before it was sent. */
  sink(
    send: ((seq: number) => unknown) | undefined,
    inTurn: boolean,
  ): AppendSink {
    const entry = new Entry(this, send as Send | undefined, inTurn);
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    this.pushed += 1;
    return entry;
  }

  /** An entry settled: the queue is drained in a microtask (one for the entries settled together). */
  wake(): void {
    if (this.waking) return;
    this.waking = true;
    soon(this.drainNow);
  }

  private readonly drainNow = (): void => {
    this.waking = false;
    this.drain();
  };

  /** Resolves once everything added so far has been sent (or dropped). */
  settled(): Promise<void> {
    if (this.done >= this.pushed && !this.blocked) return Promise.resolve();
    const upto = this.pushed;
    return new Promise((resolve) =>
      (this.waiters ??= []).push({ upto, resolve }),
    );
  }

  // Sends from the head of the queue while its appends have settled, in order.
  private drain(): void {
    for (
      let entry = this.first;
      entry && !this.blocked && entry.state !== "waiting";
      entry = this.first
    ) {
      this.first = entry.next;
      if (!this.first) this.last = undefined;
      this.done += 1;
      if (entry.state === "failed")
        this.owner.appendFailed(entry.outcome, entry.inTurn);
      else if (entry.send && !this.owner.stopped())
        this.run(entry.send, entry.outcome);
    }
    this.resolveWaiters();
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
  private resolveWaiters(): void {
    const waiters = this.waiters;
    if (this.blocked || !waiters) return;
    while (waiters.length > 0 && waiters[0]!.upto <= this.done)
      waiters.shift()!.resolve();
    if (waiters.length === 0) this.waiters = undefined;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
