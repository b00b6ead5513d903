// One turn: an async iterable of events plus a `result` promise. Cancellation is a normal end
// (`cancelled`); an agent that ignores it past the grace period is killed (AGENT_UNRESPONSIVE).
import { AsyncQueue } from "../shared/async-queue.js";
import { HubError } from "../shared/errors.js";
import { deferred } from "../shared/abort.js";
import type { PromptResult, RunEvent } from "../contracts/events.js";

export interface RunControl {
  /** Sends `session/cancel` and answers pending permission requests `cancelled`. */
  requestCancel(): void;
  /** Called when the agent ignored the cancel for too long. */
  onUnresponsive(error: HubError): void;
  /** Called once, synchronously, when the run ends either way. */
  onSettle(): void;
  cancelGraceMs: number;
  agentName: string;
}

export class PromptRun implements AsyncIterable<RunEvent> {
  readonly result: Promise<PromptResult>;
  private readonly queue: AsyncQueue<RunEvent>;
  private readonly done = deferred<PromptResult>();
  private started = false;
  private settled = false;
  private cancelRequested = false;
  /** The queue's LIMIT_EXCEEDED, once the consumer fell too far behind. */
  private overflow: unknown;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly control: RunControl,
    maxQueuedEvents: number,
  ) {
    this.queue = new AsyncQueue<RunEvent>(maxQueuedEvents);
    this.result = this.done.promise;
    this.result.catch(() => undefined);
  }

  get cancelled(): boolean {
    return this.cancelRequested;
  }

  get isSettled(): boolean {
    return this.settled;
  }

  markStarted(): void {
    this.started = true;
    if (this.cancelRequested) this.control.requestCancel();
  }

  // Queues an event for the consumer. A consumer too slow for the queue's bound gets
  // LIMIT_EXCEEDED, and the agent's turn is cancelled: nobody would relay the rest of it.
  push(event: RunEvent): void {
    if (this.settled || this.overflow !== undefined) return;
    this.queue.push(event);
    if (this.queue.error === undefined) return;
    this.overflow = this.queue.error;
    this.cancel();
  }

  // Ends the run with the agent's answer (with the overflow error after an overflow).
  finish(result: PromptResult): void {
    if (this.overflow !== undefined) return this.fail(this.overflow);
    if (this.settled) return;
    this.settle();
    this.queue.end();
    this.done.resolve(result);
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settle();
    this.queue.fail(error);
    this.done.reject(error);
  }

  private settle(): void {
    this.settled = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.control.onSettle();
  }

  // Asks the agent to stop; a run that has not started yet ends at once.
  cancel(): void {
    if (this.settled || this.cancelRequested) return;
    this.cancelRequested = true;
    if (!this.started) {
      this.finish({
        stopReason: "cancelled",
        response: { stopReason: "cancelled" },
      });
      return;
    }
    this.control.requestCancel();
    const ms = this.control.cancelGraceMs;
    this.graceTimer = setTimeout(() => {
      const error = new HubError(
        "AGENT_UNRESPONSIVE",
        `agent "${this.control.agentName}" did not end the turn within ${ms} ms of session/cancel; it was killed`,
        { details: { cancelGraceMs: ms } },
      );
      this.fail(error);
      this.control.onUnresponsive(error);
    }, ms);
    this.graceTimer.unref();
  }

  /** The next event already received, taken without waiting (TurnPort.poll). */
  poll(): RunEvent | undefined {
    return this.queue.poll();
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}
