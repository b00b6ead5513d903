// Where the per-user counts behind quotas are kept: the turns a user runs, the sessions they
// are opening and have open, and their prompts in the last window (the one rate limiter,
// engine/limits.ts). A port: this process's counts (one hub), or the cluster's, kept in the
// ledger (cluster/quota-counter.ts, issue 37), so that every node of a cluster sees the same.
import { RateWindow } from "../engine/limits.js";

/** What a user holds while it lasts (`agents`: their live agent processes, issue 36). */
export type HeldKind = "turns" | "opening" | "agents";

export interface QuotaCounter {
  /**
   * Holds one of the user's `kind` when fewer than `max` are held (check and count in one
   * step); the release (counts once), or undefined when `max` are held. For "opening", the
   * sessions the user has open (`live`) count too, and opening a session (`sessionId`) the
   * user has open already is free.
   */
  hold(
    user: string,
    kind: HeldKind,
    max: number,
    sessionId?: string,
  ): Promise<(() => void) | undefined>;
  /** How many of the user's `kind` are held now. */
  held(user: string, kind: HeldKind): Promise<number>;
  /** Counts one prompt in the user's window: 0, or the ms until one frees up (not counted). */
  take(user: string, max: number, windowMs: number): Promise<number>;
  /** The user has the session open here (until the release): it counts in "opening"'s max. */
  live(user: string, sessionId: string): Promise<() => void>;
  /** Resolves once every release made so far counts everywhere (a cluster's are written to its
   * ledger without waiting); none: they count at once. */
  settled?(): Promise<void>;
}

// The counts of this process only (a hub without a cluster).
export class InProcessQuotaCounter implements QuotaCounter {
  private readonly counts = new Map<string, number>();
  /** The sessions each user has open here, with how many marks each. */
  private readonly open = new Map<string, Map<string, number>>();
  private readonly window: RateWindow;

  constructor(now: () => number = Date.now) {
    this.window = new RateWindow(now);
  }

  hold(user: string, kind: HeldKind, max: number, sessionId?: string) {
    const open = this.open.get(user);
    if (kind === "opening" && sessionId !== undefined && open?.has(sessionId))
      return Promise.resolve(() => undefined);
    const key = `${kind}:${user}`;
    const n = this.counts.get(key) ?? 0;
    const also = kind === "opening" ? (open?.size ?? 0) : 0;
    if (n + also >= max) return Promise.resolve(undefined);
    this.counts.set(key, n + 1);
    return Promise.resolve(once(() => this.drop(key)));
  }

  held(user: string, kind: HeldKind): Promise<number> {
    return Promise.resolve(this.counts.get(`${kind}:${user}`) ?? 0);
  }

  take(user: string, max: number, windowMs: number): Promise<number> {
    return Promise.resolve(this.window.take(user, max, windowMs));
  }

  live(user: string, sessionId: string): Promise<() => void> {
    const mine = this.open.get(user) ?? new Map<string, number>();
    this.open.set(user, mine);
    mine.set(sessionId, (mine.get(sessionId) ?? 0) + 1);
    return Promise.resolve(
      once(() => {
        const left = (mine.get(sessionId) ?? 1) - 1;
        if (left > 0) mine.set(sessionId, left);
        else mine.delete(sessionId);
        if (mine.size === 0 && this.open.get(user) === mine)
          this.open.delete(user);
      }),
    );
  }

  // One hold fewer under `key`.
  private drop(key: string): void {
    const left = (this.counts.get(key) ?? 1) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}

/** A release that counts once however often it is called. */
export function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
