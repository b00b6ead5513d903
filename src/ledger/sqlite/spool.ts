// The SQLite ledger's spool (schema 10, issue 39): a group-commit batch is stored as ONE row of
// `event_spool` (./spool-rows.ts), not a row per event, and its events are folded into the log
// later: at most FOLD_MS after, past FOLD_ROWS or FOLD_BYTES, on close, and before anything else
// reads or writes the ledger (./sqlite-ledger.ts). A fold merges each run of a reply's text
// chunks into one row (../compaction.ts), as a turn's compaction does, so a streaming session
// costs the log one row per message per fold instead of one indexed row per chunk: that insert,
// its index entry and its later move and delete were most of the hub's cost per update, and
// what grew with the sessions streaming. A batch is still committed before any of its events is
// relayed, so kill -9 loses nothing. A session with many updates in a batch has its runs spooled
// already merged (./spool-merge.ts), and the fold merges those rows as it merges chunks.
//
// A fold takes every spooled row, whoever wrote it (another process's, a dead process's), and
// deletes them in the same transaction: the table, not this process's memory, says what is
// still to fold, so any connection may fold at any time and a row is folded exactly once; it
// merges only its own connection's rows (another process's mask may lack a secret the writer's
// has: `insert`). (A connection keeps its own batches' events too, and folds from them without
// reading the table back while no other connection has committed since: the table then holds
// exactly those.) A connection reads its counters only with the spool folded
// (./counter-cache.ts), so that they count every event stored. A turn's compaction waits for the
// next fold (nextFold) and then needs none, as a session's record needs none (spooledAfter): a
// fold per compaction, and per prompt, folded every streaming session's rows.
import type Database from "better-sqlite3";
import type { Logger } from "../../shared/logger.js";
import { countInto, overCaps, type Counters } from "../counters.js";
import type { PendingEvent } from "../group-commit.js";
import { STAMP_MS } from "../stamp-clock.js";
import { writeCounters, type BatchWriter } from "./sqlite-batch.js";
import { bytesOf, mergedRows, runsIn, withRunsMerged } from "./spool-merge.js";
import {
  decodeRows,
  encodeRows,
  holdRow,
  spoolRow,
  type Held,
  type SpoolRow,
} from "./spool-rows.js";

/** This connection's events are folded at most this long after they were spooled… */
export const FOLD_MS = STAMP_MS;
/** …or once this many are spooled… */
export const FOLD_ROWS = 8192;
/** …or this many bytes of their text. */
export const FOLD_BYTES = 8 * 1024 * 1024;

const SQL = {
  insert: "INSERT INTO event_spool (body) VALUES (?)",
  version: "PRAGMA data_version",
  any: "SELECT 1 FROM event_spool LIMIT 1",
  all: "SELECT id, body FROM event_spool ORDER BY id",
  drop: "DELETE FROM event_spool WHERE id <= ?",
  exists: "SELECT 1 FROM sessions WHERE id = ?",
};

/** A session's events still spooled: how many, and their bytes. */
export interface Spooled {
  count: number;
  bytes: number;
}

/** A batch as spooled: each event's seq, the sessions written, the rows made of its events. */
interface Counted {
  seqs: (number | undefined)[];
  written: [string, Counters][];
  rows: SpoolRow[];
}

export class EventSpool {
  /** Events and bytes this connection spooled since its last fold. */
  private spooled = 0;
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /**
   * This connection's batches since its last fold, with the last row's id, while the table is
   * known to hold exactly them (no other connection committed since `version` was read);
   * undefined when it is not known (another's commit, a rolled back transaction): the fold then
   * reads the table. `sessions`: each session's rows among them (how many, their bytes, the
   * first's seq), so that spooledAfter reads no other session's.
   */
  private mine:
    | { rows: SpoolRow[]; lastId: number; sessions: Map<string, Held> }
    | undefined;
  private version: unknown;
  /** Woken at the next fold (nextFold). */
  private folding: { promise: Promise<void>; wake: () => void } | undefined;
  private readonly stmt: Record<keyof typeof SQL, Database.Statement>;
  private readonly spoolTx: (batch: PendingEvent[]) => Counted;
  private readonly foldTx: () => void;

  constructor(
    private readonly w: BatchWriter,
    private readonly mask: (text: string) => string,
    private readonly logger: Logger,
  ) {
    this.stmt = Object.fromEntries(
      Object.entries(SQL).map(([k, text]) => [k, w.db.prepare(text)]),
    ) as typeof this.stmt;
    this.stmt.version.pluck();
    // The counters are read with every spooled event in the log.
    // Unknown (`mine` undefined, after a failure) counts as spooled: a fold that failed mid-way
    // had zeroed the count, and counters read without its events would reuse their seqs.
    w.counters.beforeRead = (changed) => {
      if (changed || this.spooled > 0 || !this.mine) this.foldRows();
    };
    // Made once: better-sqlite3 builds four wrappers and their properties on every
    // `transaction()` call (17 µs; a batch comes every 2 ms).
    this.spoolTx = w.db.transaction((batch: PendingEvent[]) =>
      this.spoolRows(batch),
    ).immediate;
    this.foldTx = w.db.transaction(() => this.foldRows()).immediate;
  }

  // Inside the batch's transaction: its sessions' counters from the writer's cache, each event
  // given its seq, the batch spooled as one row.
  private spoolRows(batch: PendingEvent[]): Counted {
    const { w } = this;
    const rows: SpoolRow[] = [];
    const counters = w.counters.forBatch(batch);
    const counted = countInto(batch, counters, (e, seq) =>
      rows.push(spoolRow(e.sessionId, seq, e.kind, e.text, e.bytes, e.at)),
    );
    const spooled = mergedRows(rows, counters, this.mask);
    if (spooled.length > 0) {
      const { lastInsertRowid } = this.stmt.insert.run(encodeRows(spooled));
      if (this.mine) {
        const { rows, sessions } = this.mine;
        for (const entry of spooled) {
          rows.push(entry);
          holdRow(sessions, entry);
        }
        this.mine.lastId = Number(lastInsertRowid);
      }
    }
    return { seqs: counted.seqs, written: counted.written, rows };
  }

  /**
   * A group-commit batch in one transaction: the sessions' counters from the writer's cache,
   * each event given its seq, the batch spooled as one row. Returns each event's seq
   * (undefined: its session does not exist). A session past its caps has the spool folded at
   * once (the fold trims it).
   */
  writeBatch(batch: PendingEvent[]): (number | undefined)[] {
    const { w } = this;
    let counted: Counted;
    try {
      counted = this.spoolTx(batch);
    } catch (error) {
      w.counters.clear(); // advanced in memory, rolled back on disk
      this.mine = undefined;
      throw error;
    }
    const { rows, seqs } = counted;
    const full = counted.written.some(([, c]) => overCaps(c, w.caps));
    if (rows.length > 0) w.journal.wrote();
    this.spooled += rows.length;
    for (const row of rows) this.bytes += row.bytes;
    if (full || this.spooled >= FOLD_ROWS || this.bytes >= FOLD_BYTES)
      this.foldLogged();
    else if (this.spooled > 0)
      this.timer ??= setTimeout(() => this.foldLogged(), FOLD_MS).unref();
    return seqs;
  }

  /**
   * The events of a session this connection has spooled (count, bytes),
   * when the spool is known to hold none of the session's events at or before `uptoSeq`, so
   * that those may be read or rewritten without a fold; undefined when it may hold some, or
   * cannot tell (another connection committed since the last fold, or a failure left it unknown).
   */
  spooledAfter(sessionId: string, uptoSeq: number): Spooled | undefined {
    if (!this.mine || this.stmt.version.get() !== this.version)
      return undefined;
    const held = this.mine.sessions.get(sessionId);
    if (!held) return { count: 0, bytes: 0 };
    return held.seq <= uptoSeq
      ? undefined
      : { count: held.count, bytes: held.bytes };
  }

  /** Resolves after the next fold, committed or not (at once when none is due: nothing is
   *  spooled here). While it is awaited, the fold's timer keeps the process alive, as the wait
   *  would. */
  nextFold(): Promise<void> {
    if (this.spooled === 0) return Promise.resolve();
    this.timer ??= setTimeout(() => this.foldLogged(), FOLD_MS);
    this.timer.ref();
    if (!this.folding) {
      let wake!: () => void;
      const promise = new Promise<void>((resolve) => (wake = resolve));
      this.folding = { promise, wake };
    }
    return this.folding.promise;
  }

  /** Folds every spooled event into the log, in one transaction (none when there is none). */
  fold(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.w.db.open || (this.spooled === 0 && !this.stmt.any.get())) return;
    try {
      this.foldTx();
    } catch (error) {
      this.forgetFold();
      throw error;
    }
  }

  /**
   * `work` (a read) with every spooled event in the log. When the disk cannot hold the fold,
   * `work` runs inside the fold's transaction and it is rolled back, with no page spilled to the
   * disk meanwhile: the read sees every event stored, which stay spooled until a fold fits.
   */
  read<T>(work: () => T): T {
    try {
      this.fold();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_FULL") throw error;
      return this.readUnfolded(work);
    }
    return work();
  }

  private readUnfolded<T>(work: () => T): T {
    const { db } = this.w;
    const spill = db.pragma("cache_spill", { simple: true }) as number;
    db.pragma("cache_spill = OFF");
    db.exec("BEGIN IMMEDIATE");
    try {
      this.foldRows();
      return work();
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK"); // (SQLite may have rolled it back itself)
      db.pragma(`cache_spill = ${spill}`);
      this.forgetFold();
    }
  }

  // After a fold that was not committed: what it changed in memory is read again, and the
  // timer folds again later.
  private forgetFold(): void {
    this.w.counters.clear();
    this.w.stamps.forget();
    this.mine = undefined;
    this.timer ??= setTimeout(() => this.foldLogged(), FOLD_MS).unref();
  }

  // The fold inside a transaction: every spooled row decoded, each session's events inserted
  // (merged when they are this connection's), the cached counters made to count the rows stored
  // (and written when due), the spooled rows deleted.
  private foldRows(): void {
    const { rows, lastId, own } = this.spooledRows();
    this.spooled = 0;
    this.bytes = 0;
    this.mine = { rows: [], lastId: 0, sessions: new Map() };
    // (Its waiters run after this transaction ends, committed or rolled back.)
    this.folding?.wake();
    this.folding = undefined;
    this.timer?.unref();
    if (rows.length === 0) return;
    const bySession = new Map<string, SpoolRow[]>();
    for (const row of rows) {
      const list = bySession.get(row.sessionId);
      if (list) list.push(row);
      else bySession.set(row.sessionId, [row]);
    }
    let inserted = 0;
    const counters = this.w.counters.current();
    for (const [id, rows] of bySession) {
      // Deleted: its events went with it. (Counters held say it exists: any delete clears them.)
      if (!counters?.has(id) && !this.stmt.exists.get(id)) continue;
      const stored = this.insert(id, rows, own);
      inserted += stored.rows;
      const c = counters?.get(id);
      if (!c) continue; // not this writer's: the log's rows count for it (./counts.ts)
      c.eventCount -= rows.length - stored.rows;
      c.bytes += stored.bytes - bytesOf(rows);
      c.at = rows[rows.length - 1]!.at;
      writeCounters(this.w, id, c);
    }
    this.stmt.drop.run(lastId);
    this.w.journal.added(inserted);
  }

  // Every spooled event in order, the last spool row's id, and whether they are all this
  // connection's own: as it holds them when the table holds nothing else, else read from the
  // table (another process's, a killed one's, or its own after another's commit).
  private spooledRows(): { rows: SpoolRow[]; lastId: number; own: boolean } {
    const version = this.stmt.version.get();
    const known = version === this.version ? this.mine : undefined;
    this.version = version;
    if (known) return { ...known, own: true };
    const spooled = this.stmt.all.raw().all() as [number, string][];
    return {
      rows: spooled.flatMap(([id, body]) =>
        decodeRows(body, (at) =>
          this.logger.warn(
            { spoolRow: id, at, length: body.length },
            "ledger: a damaged event spool row: its events from this character on are skipped",
          ),
        ),
      ),
      lastId: spooled.length ? spooled[spooled.length - 1]![0] : 0,
      own: false,
    };
  }

  // The timer's and the bounds' fold: a failure is logged and tried again later.
  private foldLogged(): void {
    try {
      this.fold();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: folding the event spool failed; its events stay spooled and are tried again",
      );
    }
  }

  // A session's events inserted into the journal, each run of text chunks of this connection's
  // own (`merge`) as one merged row (kept at its last seq, with its chunk list, as a turn's
  // compaction writes it). Another's are inserted as they were spooled: merged here, a secret
  // split across chunks would be joined and masked with this process's mask, which may lack
  // one the writer masks (a secret given to a running hub: `acphub sessions show` folding while
  // it streams stored it whole). The writer's compaction merges them.
  private insert(
    id: string,
    rows: readonly SpoolRow[],
    merge: boolean,
  ): { rows: number; bytes: number } {
    const merged = merge ? withRunsMerged(rows, runsIn(rows), this.mask) : rows;
    for (const row of merged)
      this.w.stmt.insertEvent.run(
        id,
        row.seq,
        row.kind,
        row.text,
        row.bytes,
        row.at,
      );
    return {
      rows: merged.length,
      bytes: bytesOf(merged),
    };
  }
}
