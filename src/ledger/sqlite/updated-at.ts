// A session's `updated_at` is in two indexes (the session list's order, per folder and overall),
// so writing it moves two index entries; a streaming session's batch wrote it every 2 ms. This
// writer writes it with a batch at most once per STAMP_MS per session, and a deferred time
// within STAMP_MS after, from a timer (one small transaction for every session waiting), and on
// close: the list's order is at most STAMP_MS behind while a turn streams, exact once it rests.
// The row's counters checkpoint (./counts.ts) goes with it: a snapshot of the counters taken
// with the deferred time, written only if it moves the checkpoint forward.
import type Database from "better-sqlite3";
import type { Logger } from "../../shared/logger.js";
import type { Counters } from "../counters.js";
import { STAMP_MS, StampClock } from "../stamp-clock.js";

export { STAMP_MS, WRITTEN_KEPT } from "../stamp-clock.js";

// The time never moves back; the counters only when their snapshot is newer than the row's
// checkpoint (a trim, a compaction or another process may have written a newer one since).
const SET = `UPDATE sessions SET updated_at = MAX(updated_at, @at),
  event_count = IIF(next_seq < @next, @count, event_count),
  bytes = IIF(next_seq < @next, @bytes, bytes),
  next_seq = MAX(next_seq, @next) WHERE id = @id`;

/** What a deferred write holds: the time, and the counters then (next 0: none to write). */
interface Deferred {
  at: number;
  next: number;
  count: number;
  bytes: number;
}

export class UpdatedAtStamps {
  /** When each session's time is due (the times this writer wrote). */
  private readonly clock = new StampClock();
  /** Times (with counters) not written yet, per session. */
  private readonly deferred = new Map<string, Deferred>();
  private readonly set: Database.Statement;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly logger: Logger,
  ) {
    this.set = db.prepare(SET);
  }

  /** Inside a batch: true when the session's time and counters (`c`, after the batch) are to
   * be written now (the caller writes them); false when they were deferred. */
  due(id: string, c: Counters): boolean {
    if (this.clock.due(id, c.at)) {
      this.deferred.delete(id);
      return true;
    }
    this.deferred.set(id, {
      at: c.at,
      next: c.nextSeq,
      count: c.eventCount,
      bytes: c.bytes,
    });
    this.timer ??= setTimeout(() => this.flushLogged(), STAMP_MS).unref();
    return false;
  }

  /** How many sessions this writer remembers writing (for tests). */
  get remembered(): number {
    return this.clock.remembered;
  }

  /** Writes every deferred time and counters, in one transaction. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.deferred.size === 0 || !this.db.open) return;
    const waiting = [...this.deferred];
    this.db
      .transaction(() => {
        for (const [id, d] of waiting) this.set.run({ id, ...d });
      })
      .immediate();
    for (const [id, d] of waiting) {
      this.clock.wrote(id, d.at);
      if (this.deferred.get(id) === d) this.deferred.delete(id);
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

  /** A failed batch rolled back what this writer wrote: the next batch writes, and no deferred
   * counters are written (they may count events rolled back; their times stay). */
  forget(): void {
    this.clock.forget();
    for (const d of this.deferred.values()) d.next = 0;
  }
}
