// The hub's turns in progress: the ones running now (with the idempotency key that started
// them), and prompts from their arrival to their answer, which session/cancel aborts even
// while their checks still run.
import type { Gateway } from "../engine/gateway.js";

type Params = Record<string, unknown>;

/** A turn running here: its key, its answer to come, the gateway that runs it. */
export interface RunningTurn {
  key?: string;
  done: Promise<Params>;
  gateway: Gateway;
  /** The user whose prompt runs it (none: the serve token's holder, or a hub without users). */
  by?: string;
}

export class RunningTurns {
  private readonly running = new Map<string, RunningTurn>();
  private readonly arriving = new Map<string, Set<AbortController>>();

  has(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  get(sessionId: string): RunningTurn | undefined {
    return this.running.get(sessionId);
  }

  set(sessionId: string, turn: RunningTurn): void {
    this.running.set(sessionId, turn);
  }

  delete(sessionId: string): void {
    this.running.delete(sessionId);
  }

  /** True when a turn runs in the session that a user other than `user` drives. */
  drivenByOther(sessionId: string, user: string | undefined): boolean {
    const turn = this.running.get(sessionId);
    return turn !== undefined && turn.by !== user;
  }

  /** The sessions with a turn running now. */
  sessionIds(): IterableIterator<string> {
    return this.running.keys();
  }

  get size(): number {
    return this.running.size;
  }

  // Registers a prompt for session/cancel until `run` settles; `run` gets the arrival's signal.
  async arrive<T>(
    sessionId: string,
    run: (arrival: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const arrival = new AbortController();
    const set = this.arriving.get(sessionId) ?? new Set<AbortController>();
    this.arriving.set(sessionId, set.add(arrival));
    try {
      return await run(arrival.signal);
    } finally {
      set.delete(arrival);
      if (set.size === 0 && this.arriving.get(sessionId) === set)
        this.arriving.delete(sessionId);
    }
  }

  // session/cancel: every prompt of the session still on its way to the agent stops there.
  abortArrivals(sessionId: string): void {
    for (const arrival of this.arriving.get(sessionId) ?? []) arrival.abort();
  }
}
