// Listeners of a ledger's sessions, called after each committed batch with the last sequence
// number written for the session. A listener's error is contained: it never fails an append.
import type { Logger } from "../shared/logger.js";

export class Followers {
  private readonly listeners = new Map<string, Set<(seq: number) => void>>();

  constructor(private readonly logger: Logger) {}

  add(sessionId: string, listener: (seq: number) => void): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(sessionId);
    };
  }

  /** The sessions someone follows now. */
  ids(): string[] {
    return [...this.listeners.keys()];
  }

  has(sessionId: string): boolean {
    return this.listeners.has(sessionId);
  }

  // Tells the listeners of one session that events up to `seq` are committed.
  emit(sessionId: string, seq: number): void {
    for (const listener of this.listeners.get(sessionId) ?? []) {
      try {
        listener(seq);
      } catch (error) {
        this.logger.warn({ err: error, sessionId }, "ledger follower failed");
      }
    }
  }
}
