// A session's `updated_at` is in two indexes (the session list's order, per folder and overall),
// so writing it moves two index entries; a streaming session's batch wrote it every 2 ms. This
// writer writes it with a batch at most once per STAMP_MS per session, and a deferred time
// within STAMP_MS after, from a timer (one small transaction for every session waiting), and on
// close: the list's order is at most STAMP_MS behind while a turn streams, exact once it rests.
import type Database from "better-sqlite3";
import type { Logger } from "../../shared/logger.js";

/** How far behind a streaming session's `updated_at` may lag. */
export const STAMP_MS = 1000;

const SET =
  "UPDATE sessions SET updated_at = ? WHERE id = ? AND updated_at < ?";

export class UpdatedAtStamps {
  /** The time this writer last wrote per session. */
  private readonly written = new Map<string, number>();
  /** Times not written yet, per session. */
  private readonly deferred = new Map<string, number>();
  private readonly set: Database.Statement;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly logger: Logger,
  ) {
    this.set = db.prepare(SET);
  }

  /** Inside a batch: true when `at` is to be written now (the caller writes it); false when it
   * was deferred. */
  due(id: string, at: number): boolean {
    const last = this.written.get(id);
    if (last === undefined || at - last >= STAMP_MS) {
      this.written.set(id, at);
      this.deferred.delete(id);
      return true;
    }
    this.deferred.set(id, at);
    this.timer ??= setTimeout(() => this.flushLogged(), STAMP_MS).unref();
    return false;
  }

  /** Writes every deferred time (never moving one back), in one transaction. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.deferred.size === 0 || !this.db.open) return;
    const times = [...this.deferred];
    this.db
      .transaction(() => {
        for (const [id, at] of times) this.set.run(at, id, at);
      })
      .immediate();
    for (const [id, at] of times) {
      this.written.set(id, at);
      if (this.deferred.get(id) === at) this.deferred.delete(id);
    }
  }

  // The timer's flush: a failure (another process holding the lock) keeps the times for the
  // next try.
  private flushLogged(): void {
    try {
      this.flush();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: writing sessions' updated_at failed; it is tried again",
      );
      this.timer ??= setTimeout(() => this.flushLogged(), STAMP_MS).unref();
    }
  }

  /** Forgets what this writer wrote (a failed batch rolled it back): the next batch writes. */
  forget(): void {
    this.written.clear();
  }
}
