// The hub's record of the turns running here now: the idempotency key that started each, its
// answer to come, its gateway and its user. Whether a turn may start is the gate's to decide
// (engine/turn-gate.ts), and session/cancel asks the gate too; this is what the hub knows of them.
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
  /** Who waits for a session's turn to be forgotten here (a queued prompt next in line). */
  private readonly leaving = new Map<string, (() => void)[]>();

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
    for (const resolve of this.leaving.get(sessionId)?.splice(0) ?? [])
      resolve();
    this.leaving.delete(sessionId);
  }

  // Resolves once no turn of the session is known here: the one before a queued prompt has
  // finished its bookkeeping (its lease, its owner) before the queued one starts.
  gone(sessionId: string): Promise<void> {
    if (!this.running.has(sessionId)) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.leaving.get(sessionId) ?? [];
      this.leaving.set(sessionId, [...list, resolve]);
    });
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
}
