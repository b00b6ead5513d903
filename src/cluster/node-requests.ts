// Requests carried between the nodes of a cluster (issue 37): the sender writes a request for a
// session to the node that runs it (an operation id makes it one request however often it is
// sent), the runner takes it once, runs it and stores the answer with the session's last seq,
// and the sender, woken by NOTIFY (or finding it at its next look), reads it and deletes it.
// While it waits the sender looks every `pollMs` whether the runner still holds the session's
// lease: a request its dead runner never took is abandoned (the sender decides again), one it
// was running has an unknown outcome. The SQL is the ledger's (ClusterStore); this is the policy.
import { randomUUID } from "node:crypto";
import type {
  ClusterStore,
  NodeAnswer,
  NodeRequest,
} from "../contracts/cluster-store.js";
import type { Logger } from "../shared/logger.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import { toRequestError } from "../protocol/to-request-error.js";

export const CHANNEL = "acphub_cluster";
/** Answered rows a sender never read (it died) go after this long (ms). */
const ANSWERED_KEEP_MS = 10 * 60_000;
/** Any row goes after this long (ms): no request waits a day. */
const MAX_AGE_MS = 24 * 60 * 60_000;

/** How a routed request ended, as the sender sees it. */
export type Routed =
  | { answer: NodeAnswer }
  /** The runner never took it and never will: decide where it runs again. */
  | { reroute: true }
  /** The runner lost the session (died, fenced) while running it: its outcome is unknown. */
  | { lost: string };

/** Wakes waiters by operation id: a notice, or their next look. */
export class Waiters {
  private readonly wakes = new Map<string, () => void>();

  // Resolves at the op's next notice, or after `ms`.
  wait(op: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const wakes = this.wakes;
      function done() {
        clearTimeout(timer);
        if (wakes.get(op) === done) wakes.delete(op);
        resolve();
      }
      this.wakes.set(op, done);
    });
  }

  wake(op: string): void {
    this.wakes.get(op)?.();
  }
}

/** What a request about to be sent says. */
export type Outgoing = Omit<NodeRequest, "op" | "from"> & { op?: string };

/** How a sender waits: looking every `pollMs`; with `untilMs`, not for the lease's holder but
 *  at most that long (a request for a node that does not run the session: a move). */
export interface Waiting {
  pollMs: number;
  untilMs?: number;
}

// Sends a request and waits for its answer (or for its runner to be gone); the signal cancels
// it on the runner (the runner still answers: a cancelled prompt ends `cancelled`).
export async function sendAndWait(
  store: ClusterStore,
  waiters: Waiters,
  from: string,
  outgoing: Outgoing,
  signal: AbortSignal,
  { pollMs, untilMs }: Waiting,
): Promise<Routed> {
  const deadline = untilMs === undefined ? Infinity : Date.now() + untilMs;
  const request: NodeRequest = {
    ...outgoing,
    op: outgoing.op ?? randomUUID(),
    from,
  };
  const { op } = request;
  const cancel = () =>
    void store.cancelRequest(op, CHANNEL).catch(() => undefined);
  let woke = waiters.wait(op, pollMs);
  await store.sendRequest(request, CHANNEL);
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  try {
    for (;;) {
      const state = await store.requestState(op);
      if (state?.state === "done" && state.answer) {
        await store.forgetRequest(op).catch(() => undefined);
        return { answer: state.answer };
      }
      if (!state || state.state === "abandoned") return { reroute: true };
      if (Date.now() >= deadline) {
        if (await store.abandonRequest(op)) return { reroute: true };
        return { lost: request.to };
      }
      if (untilMs === undefined && state.holder !== request.to) {
        if (state.state === "pending" && (await store.abandonRequest(op)))
          return { reroute: true };
        if (state.state === "running") return { lost: request.to };
      }
      await woke;
      woke = waiters.wait(op, pollMs);
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** What the runner side needs: the store, this node, and how a request is served here. */
export interface ServeOptions {
  store: ClusterStore;
  nodeId: () => string;
  /** Runs the request on this node's hub; rejects with what the client is to be told. */
  serve: (request: NodeRequest, signal: AbortSignal) => Promise<unknown>;
  /** The session's last stored seq, once the request is done (the sender's feed waits for it). */
  lastSeq: (sessionId: string) => Promise<number>;
  logger: Logger;
}

/** The runner's side: requests for this node taken once, run, answered. */
export class ServedRequests {
  /** Requests running here, by op: their cancel. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly o: ServeOptions) {}

  // A request for this node was written: taken (once across every notice of it) and run.
  async take(op: string): Promise<void> {
    if (this.running.has(op)) return;
    // Registered before the take: a cancel written after it finds the request here.
    const controller = new AbortController();
    this.running.set(op, controller);
    try {
      const request = await this.o.store.takeRequest(op, this.o.nodeId());
      if (!request) return;
      if (request.cancelled) controller.abort();
      const answer = await this.run(request, controller.signal);
      await this.o.store.answerRequest(op, answer, CHANNEL);
    } catch (error) {
      this.o.logger.warn({ err: error, op }, "cluster: request not answered");
    } finally {
      this.running.delete(op);
    }
  }

  // The sender gave up waiting for a request running here: its run is cancelled.
  cancel(op: string): void {
    this.running.get(op)?.abort();
  }

  /** Deletes what senders left behind (answers never read, requests of dead nodes). */
  async sweep(): Promise<void> {
    await this.o.store
      .sweepRequests(ANSWERED_KEEP_MS, MAX_AGE_MS)
      .catch(() => undefined);
  }

  // Runs it; an error is answered as the client would have been told it here.
  private async run(
    request: NodeRequest,
    signal: AbortSignal,
  ): Promise<NodeAnswer> {
    let answer: Omit<NodeAnswer, "lastSeq">;
    try {
      answer = { result: await this.o.serve(request, signal) };
    } catch (error) {
      const wire = toRequestError(error);
      answer = {
        error: { code: wire.code, message: wire.message, data: wire.data },
        ...(isHubError(error) && error.details["reroute"] === true
          ? { reroute: true }
          : {}),
      };
      if (!isHubError(error))
        this.o.logger.warn(
          { err: errorMessage(error), method: request.method },
          "cluster: a carried request failed",
        );
    }
    const lastSeq = await this.o.lastSeq(request.sessionId).catch(() => 0);
    return { ...answer, lastSeq };
  }
}
