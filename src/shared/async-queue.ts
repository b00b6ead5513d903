// A bounded single-consumer queue that turns pushed values into an async iterator. Exceeding
// the bound fails the queue with a typed error instead of growing without limit.
import { HubError } from "./errors.js";

export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((error: unknown) => void) | undefined;
  private ended = false;
  private failure: unknown;
  private iterating = false;

  constructor(private readonly maxItems: number) {}

  /** Why the queue failed (its bound was exceeded, or fail() was called), if it did. */
  get error(): unknown {
    return this.failure;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const resolve = this.waiter;
      this.clearWaiter();
      resolve({ value: item, done: false });
      return;
    }
    if (this.size >= this.maxItems) {
      this.fail(
        new HubError(
          "LIMIT_EXCEEDED",
          `event queue exceeded ${this.maxItems} items`,
          {
            details: { maxItems: this.maxItems },
          },
        ),
      );
      return;
    }
    this.items.push(item);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter && this.size === 0) {
      const resolve = this.waiter;
      this.clearWaiter();
      resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = error;
    this.ended = true;
    if (this.failWaiter) {
      const reject = this.failWaiter;
      this.clearWaiter();
      reject(error);
    }
  }

  private clearWaiter(): void {
    this.waiter = undefined;
    this.failWaiter = undefined;
  }

  private shift(): T {
    const item = this.items[this.head] as T;
    this.items[this.head] = undefined as T;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** The next item already queued, taken without waiting (undefined when none is). */
  poll(): T | undefined {
    return this.size > 0 ? this.shift() : undefined;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.size > 0)
      return Promise.resolve({ value: this.shift(), done: false });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterating)
      throw new Error("AsyncQueue supports a single consumer");
    this.iterating = true;
    return {
      next: () => this.next(),
      return: () => {
        this.ended = true;
        this.items.length = 0;
        this.head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
