// Lets go of the hub's sessions nobody uses: a live session with nobody attached and no turn
// for `idleMs` is released by its gateway (closed on its agent, or forgotten here with its host
// state and terminals when the agent cannot close it); the next use restores it from the ledger.
import type { Gateway } from "../engine/gateway.js";
import type { Logger } from "../shared/logger.js";

/** How long a session nobody uses stays live by default: 30 minutes. */
export const DEFAULT_IDLE_SESSION_MS = 30 * 60_000;

export class IdleSessions {
  /** Since when each live session has been unused. */
  private readonly since = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly gateways: () => Iterable<Gateway>,
    private readonly inUse: (sessionId: string) => boolean,
    private readonly logger: Logger,
  ) {
    const every = Math.max(10, Math.min(idleMs / 2, 60_000));
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  // One look at every live session: its idle clock starts, stops, or has run out.
  private sweep(): void {
    const now = Date.now();
    const seen = new Set<string>();
    for (const gateway of this.gateways())
      for (const id of gateway.liveSessionIds()) {
        seen.add(id);
        if (this.inUse(id)) {
          this.since.delete(id);
          continue;
        }
        const since = this.since.get(id) ?? now;
        this.since.set(id, since);
        if (now - since < this.idleMs) continue;
        this.since.delete(id);
        this.logger.info({ sessionId: id }, "idle session released");
        void gateway.release(id);
      }
    for (const id of this.since.keys())
      if (!seen.has(id)) this.since.delete(id);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
