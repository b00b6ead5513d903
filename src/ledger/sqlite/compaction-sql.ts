// A finished turn's compaction on SQLite (../compaction.ts plans it): the turn's `update` rows
// read alone (seq and text: no other column or kind is needed), and the merged runs written.
// The runs' chunks are dropped from the journal before the session's journal rows move into
// `events`, so that a turn's thousands of chunks are not copied into `events` only to be
// deleted there; the merged rows then land in `events`, rewritten in place.
import type Database from "better-sqlite3";
import type { MergedRun } from "../compaction.js";
import type { CounterCache } from "./counter-cache.js";
import type { Journal } from "./journal.js";
import type { Statements } from "./statements.js";

const UPDATES = (table: string) =>
  `SELECT seq, payload FROM ${table}
   WHERE session_id = @id AND seq > @after AND seq <= @upto AND kind = 'update'`;

/** Rows in `events` then the journal, ordered by seq. */
const UPDATE_ROWS = `${UPDATES("events")} UNION ALL ${UPDATES("event_journal")} ORDER BY seq`;

/** A run's rows in both tables before it is merged: how many, and their bytes. */
const RUN = (table: string) =>
  `SELECT bytes FROM ${table}
   WHERE session_id = @id AND seq >= @from AND seq <= @last`;
const RUN_FIGURES = `SELECT COUNT(*) AS count, COALESCE(SUM(bytes), 0) AS bytes
  FROM (${RUN("events")} UNION ALL ${RUN("event_journal")})`;

interface Figures {
  count: number;
  bytes: number;
}

export class SqliteCompaction {
  private readonly updates: Database.Statement;
  private readonly runFigures: Database.Statement;
  private readonly applyTx: (sessionId: string, runs: MergedRun[]) => void;

  constructor(
    private readonly db: Database.Database,
    private readonly stmt: Statements,
    private readonly journal: Journal,
    private readonly counters: CounterCache,
  ) {
    this.updates = db.prepare(UPDATE_ROWS).raw();
    this.runFigures = db.prepare(RUN_FIGURES);
    // Made once: better-sqlite3 builds its wrappers on every `transaction()` call.
    this.applyTx = db.transaction((id: string, runs: MergedRun[]) =>
      this.writeRuns(id, runs),
    );
  }

  /** The session's `update` rows [seq, text] with afterSeq < seq <= uptoSeq, in order. */
  updateRows(id: string, after: number, upto: number): unknown[][] {
    return this.updates.all({ id, after, upto }) as unknown[][];
  }

  /** Merged runs written in one transaction. The session's journal rows move into `events`
   * (its turn is over: they go together), its runs' chunks dropped from both tables first. Its
   * counters change by what the runs' rows were and what they became: the checkpoint (from
   * the exact figures every reader reads) and this connection's cached ones alike. The figures
   * are the runs' own: a recount of the session read every row it ever stored, at every turn. */
  apply(sessionId: string, runs: MergedRun[]): void {
    this.applyTx(sessionId, runs);
  }

  // The transaction's work (applyTx).
  private writeRuns(sessionId: string, runs: MergedRun[]): void {
    const held = this.counters.current()?.get(sessionId);
    const stored = this.stmt.counters.get(sessionId) as
      { next_seq: number; event_count: number; bytes: number } | undefined;
    const change: Figures = { count: 0, bytes: 0 };
    for (const { fromSeq: from, lastSeq: last } of runs) {
      const was = this.runFigures.get({
        id: sessionId,
        from,
        last,
      }) as Figures;
      change.count -= was.count;
      change.bytes -= was.bytes;
      this.journal.dropRange(sessionId, from, last);
      this.stmt.deleteRange.run(sessionId, from, last);
    }
    this.journal.moveSession(sessionId);
    for (const { lastSeq, text } of runs) {
      const size = Buffer.byteLength(text);
      const { changes } = this.stmt.rewriteEvent.run(
        text,
        size,
        sessionId,
        lastSeq,
      );
      change.count += changes;
      change.bytes += changes * size;
    }
    if (stored)
      this.stmt.setCountsOnly.run(
        stored.next_seq,
        stored.event_count + change.count,
        stored.bytes + change.bytes,
        0,
        sessionId,
      );
    if (held) {
      held.eventCount += change.count;
      held.bytes += change.bytes;
    }
  }
}
