// The hot end of the SQLite event log (schema 5). A group commit appends its events to
// `event_journal`, a table clustered by a global rowid, so a commit dirties the one or two pages at
// its end whatever the number of sessions in the batch; `events`, clustered by (session, seq),
// would take a page per session. Rows move into `events` in bulk, a session's rows together: the
// session's own at its turn's compaction (and before a fork or a trim), everyone's once the
// journal holds MOVE_ROWS rows. Reads take both tables (statements.ts); a move is one transaction,
// so a row is in exactly one of them.
import type Database from "better-sqlite3";
import type { Logger } from "../../shared/logger.js";
import type { Statements } from "./statements.js";

/** Rows (events) the journal holds before a move of all of them is scheduled. */
export const MOVE_ROWS = 8192;

export class Journal {
  private rows: number;
  private scheduled = false;

  constructor(
    private readonly db: Database.Database,
    private readonly stmt: Statements,
    private readonly logger: Logger,
  ) {
    this.rows = Number(stmt.journalCount.pluck().get());
  }

  /** Counts rows a committed batch appended; schedules a move past MOVE_ROWS. */
  added(count: number): void {
    this.rows += count;
    if (this.rows < MOVE_ROWS || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.moveAllLogged();
    });
  }

  /** Moves one session's rows into `events`; the caller's transaction holds it. */
  moveSession(sessionId: string): void {
    this.stmt.moveSession.run(sessionId);
    this.rows -= this.stmt.dropSession.run(sessionId).changes;
  }

  /** Moves every row into `events` in one transaction. */
  moveAll(): void {
    this.db
      .transaction(() => {
        this.stmt.moveAll.run();
        this.stmt.dropAll.run();
      })
      .immediate();
    this.rows = 0;
  }

  // The scheduled move: a failure loses nothing (the rows stay where reads find them).
  private moveAllLogged(): void {
    if (!this.db.open) return;
    try {
      this.moveAll();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: moving the event journal failed; its rows stay in the journal",
      );
    }
  }
}
