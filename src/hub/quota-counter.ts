// Where the per-user counts behind quotas are kept: the turns a user runs and the sessions they
// are opening (held until released), and their prompts in the last window (the one rate limiter,
// engine/limits.ts). A port: this process's counts now; a ledger-backed counter (issue 37) drops
// in so that every node of a cluster sees the same counts.
import { RateWindow } from "../engine/limits.js";

/** What a user holds while it lasts (`agents`: their live agent processes, issue 36). */
export type HeldKind = "turns" | "opening" | "agents";

export interface QuotaCounter {
  /** Holds one of the user's `kind` when fewer than `max` are held (check and count in one
   *  step); the release (counts once), or undefined when `max` are held. */
  hold(
    user: string,
    kind: HeldKind,
    max: number,
  ): Promise<(() => void) | undefined>;
  /** How many of the user's `kind` are held now. */
  held(user: string, kind: HeldKind): Promise<number>;
  /** Counts one prompt in the user's window: 0, or the ms until one frees up (not counted). */
  take(user: string, max: number, windowMs: number): Promise<number>;
}

// The counts of this process only (a hub without a cluster, or until issue 37).
export class InProcessQuotaCounter implements QuotaCounter {
  private readonly counts = new Map<string, number>();
  private readonly window: RateWindow;

  constructor(now: () => number = Date.now) {
    this.window = new RateWindow(now);
  }

  hold(user: string, kind: HeldKind, max: number) {
    const key = `${kind}:${user}`;
    const n = this.counts.get(key) ?? 0;
    if (n >= max) return Promise.resolve(undefined);
    this.counts.set(key, n + 1);
    let done = false;
    return Promise.resolve(() => {
      if (done) return;
      done = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    });
  }

  held(user: string, kind: HeldKind): Promise<number> {
    return Promise.resolve(this.counts.get(`${kind}:${user}`) ?? 0);
  }

  take(user: string, max: number, windowMs: number): Promise<number> {
    return Promise.resolve(this.window.take(user, max, windowMs));
  }
}
