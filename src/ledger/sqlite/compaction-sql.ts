// A finished turn's compaction on SQLite (../compaction.ts plans it): the turn's `update` rows
// read alone (seq and text: no other column or kind is needed), and the merged runs written.
// The runs' chunks are dropped from the journal before the session's journal rows move into
// `events`, so that a turn's thousands of chunks are not copied into `events` only to be
// deleted there; the merged rows then land in `events`, rewritten in place.
import type Database from "better-sqlite3";
import type { MergedRun } from "../compaction.js";
import type { CounterCache } from "./counter-cache.js";
import type { Journal } from "./journal.js";
import type { Spooled } from "./spool.js";
import type { Statements } from "./statements.js";

const UPDATES = (table: string) =>
  `SELECT seq, payload FROM ${table}
   WHERE session_id = @id AND seq > @after AND seq <= @upto AND kind = 'update'`;

/** Rows in `events` then the journal, ordered by seq. */
const UPDATE_ROWS = `${UPDATES("events")} UNION ALL ${UPDATES("event_journal")} ORDER BY seq`;

export class SqliteCompaction {
  private readonly updates: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly stmt: Statements,
    private readonly journal: Journal,
    private readonly counters: CounterCache,
  ) {
    this.updates = db.prepare(UPDATE_ROWS).raw();
  }

  /** The session's `update` rows [seq, text] with afterSeq < seq <= uptoSeq, in order. */
  updateRows(id: string, after: number, upto: number): unknown[][] {
    return this.updates.all({ id, after, upto }) as unknown[][];
  }

  /** Merged runs written in one transaction, counters redone (this session's only: the others'
   * cached counters stay good). The session's journal rows move into `events` (its turn is over:
   * they go together), its runs' chunks dropped from both tables first. `spooled`: the session's
   * events still in the spool (all after the runs), which its cached counters count besides
   * the stored ones; without it, its counters are read again at its next batch. */
  apply(sessionId: string, runs: MergedRun[], spooled?: Spooled): void {
    this.db.transaction(() => {
      const held = spooled && this.counters.current()?.get(sessionId);
      if (!held) this.counters.forget(sessionId);
      for (const { fromSeq, lastSeq } of runs) {
        this.journal.dropRange(sessionId, fromSeq, lastSeq);
        this.stmt.deleteRange.run(sessionId, fromSeq, lastSeq);
      }
      this.journal.moveSession(sessionId);
      for (const { lastSeq, text } of runs)
        this.stmt.rewriteEvent.run(
          text,
          Buffer.byteLength(text),
          sessionId,
          lastSeq,
        );
      const stored = this.stmt.recount.get({ id: sessionId }) as
        { event_count: number; bytes: number } | undefined;
      if (held && stored) {
        held.eventCount = stored.event_count + spooled.count;
        held.bytes = stored.bytes + spooled.bytes;
      }
    })();
  }
}
