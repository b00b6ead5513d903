// A session's `updated_at` is in two indexes (the session list's order, per folder and overall):
// a batch that writes it moves two index entries and cannot update the row in place (HOT). As
// the SQLite ledger does (../sqlite/updated-at.ts), a streaming session's time goes with a batch
// at most once per STAMP_MS; a time deferred is written within STAMP_MS by a timer (one small
// transaction for every session waiting) and on close. The list's order is at most STAMP_MS
// behind while a turn streams, exact once it rests. A time is never moved back.
import type { Logger } from "../../shared/logger.js";
import type { PgConnection } from "./pg-connection.js";
import { STAMP_MS, StampClock } from "../stamp-clock.js";

export { STAMP_MS } from "../stamp-clock.js";

// The sessions' rows are locked in id order first, as a batch locks them: a batch and this
// write, each taking several rows, never wait on each other in a cycle.
const LOCK = `SELECT id FROM acphub_sessions WHERE id = ANY ($1) ORDER BY id FOR UPDATE`;
const SET = `UPDATE acphub_sessions s SET updated_at = u.at
  FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE s.id = u.id AND s.updated_at < u.at`;

export class PgUpdatedAtStamps {
  /** When each session's time is due (the times this writer wrote). */
  private readonly clock = new StampClock();
  /** Times not written yet, per session. */
  private readonly deferred = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: PgConnection,
    private readonly logger: Logger,
  ) {}

  /** For a batch: per session, the time it writes (`lasts[i]` when due, else 0: deferred). */
  stamps(sessions: string[], lasts: number[]): number[] {
    return sessions.map((id, i) => (this.due(id, lasts[i]!) ? lasts[i]! : 0));
  }

  private due(id: string, at: number): boolean {
    if (this.clock.due(id, at)) {
      this.deferred.delete(id);
      return true;
    }
    this.deferred.set(id, at);
    this.timer ??= setTimeout(() => void this.flushLogged(), STAMP_MS).unref();
    return false;
  }

  /** Writes every deferred time, in one transaction (one flush at a time). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.deferred.size === 0) return;
    const times = [...this.deferred];
    const ids = times.map(([id]) => id);
    this.flushing = this.db.transaction(async (client) => {
      await client.query(LOCK, [ids]);
      await client.query(SET, [ids, times.map(([, at]) => at)]);
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
    for (const [id, at] of times) {
      this.clock.wrote(id, at);
      if (this.deferred.get(id) === at) this.deferred.delete(id);
    }
  }

  // The timer's flush: a failure (the server away past the retries) keeps the times for the
  // next try.
  private async flushLogged(): Promise<void> {
    try {
      await this.flush();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: writing sessions' updated_at failed; it is tried again",
      );
      this.timer ??= setTimeout(
        () => void this.flushLogged(),
        STAMP_MS,
      ).unref();
    }
  }

  /** Forgets what this writer wrote (a failed batch wrote nothing): the next batch writes. */
  forget(): void {
    this.clock.forget();
  }
}
