// The hot end of the SQLite event log (schema 5). The spool's folds (./spool.ts) insert into
// `event_journal`, a table clustered by a global rowid, so a fold dirties the few pages at its
// end whatever the number of sessions in it; `events`, then clustered by (session, seq), would
// have taken a page per session. (Since schema 11 `events` is a rowid table too, its key an
// index as the journal's is: folding into it directly measured no cheaper, so the journal stays.)
// Rows move into `events` in bulk, a session's rows together: the session's own
// at its turn's compaction (and before a fork or a trim); once the journal holds MOVE_ROWS rows,
// the oldest in steps of MOVE_STEP rows (one transaction each, the event loop free between
// them) until it holds half that; all of them on close when this connection wrote events. Reads
// take both tables (statements.ts); a move is one transaction, so a row is in exactly one of
// them. An index on (session_id, seq) (schema 8) finds one session's rows without scanning the
// others'.
import type Database from "better-sqlite3";
import type { Logger } from "../../shared/logger.js";
import type { Statements } from "./statements.js";

/** Rows (events) the journal holds before its oldest are moved… */
export const MOVE_ROWS = 8192;
/** …at most this many rows per transaction, down to MOVE_ROWS / 2. */
export const MOVE_STEP = 4096;

export class Journal {
  private rows: number;
  private scheduled = false;
  private appended = false;
  private readonly dropRangeStmt: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly stmt: Statements,
    private readonly logger: Logger,
  ) {
    this.rows = Number(stmt.journalCount.pluck().get());
    this.dropRangeStmt = db.prepare(
      "DELETE FROM event_journal WHERE session_id = ? AND seq >= ? AND seq < ?",
    );
  }

  /** This connection wrote events (its close moves the journal into `events`). */
  wrote(): void {
    this.appended = true;
  }

  /** Counts rows a fold inserted; schedules a move past MOVE_ROWS. */
  added(count: number): void {
    this.rows += count;
    if (this.rows < MOVE_ROWS || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.step());
  }

  // One bounded step of the move; the next one after a turn of the event loop, while needed.
  private step(): void {
    if (this.db.open && this.moveStepLogged() && this.rows > MOVE_ROWS / 2) {
      setImmediate(() => this.step());
      return;
    }
    this.scheduled = false;
  }

  /** Moves one session's rows into `events`; the caller's transaction holds it. */
  moveSession(sessionId: string): void {
    this.stmt.moveSession.run(sessionId);
    this.rows -= this.stmt.dropSession.run(sessionId).changes;
  }

  /** Drops a session's rows with fromSeq <= seq < beforeSeq (chunks merged by a compaction); the
   * caller's transaction holds it. */
  dropRange(sessionId: string, fromSeq: number, beforeSeq: number): void {
    this.rows -= this.dropRangeStmt.run(sessionId, fromSeq, beforeSeq).changes;
  }

  /** On close: every row moved into `events` in one transaction, when this connection wrote
   * events (a reading command such as `acphub sessions list` leaves the journal alone). */
  moveAll(): void {
    if (!this.appended) return;
    this.db
      .transaction(() => {
        this.stmt.moveAll.run();
        this.stmt.dropAll.run();
      })
      .immediate();
    this.rows = 0;
  }

  // Moves the oldest MOVE_STEP rows; false when none are left or it failed (a failure loses
  // nothing: the rows stay where reads find them).
  private moveStepLogged(): boolean {
    try {
      return this.db
        .transaction(() => {
          const first = this.stmt.journalFirst.pluck().get() as number | null;
          if (first === null) return (this.rows = 0) > 0;
          const upTo = first + MOVE_STEP - 1;
          this.stmt.moveUpTo.run(upTo);
          this.rows -= this.stmt.dropUpTo.run(upTo).changes;
          return true;
        })
        .immediate();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: moving the event journal failed; its rows stay in the journal",
      );
      return false;
    }
  }
}
