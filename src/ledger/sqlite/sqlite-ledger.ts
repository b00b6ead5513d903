// The ledger in SQLite (WAL), the embedded default: sessions and an append-only event log per
// session. Appends are grouped (one transaction per tick or bound) and each resolves after its
// commit, so nothing is relayed before it is on disk; it survives kill -9 of acphub. What both
// engines share lives in ../core.ts; this adapter runs its SQL synchronously and writes batches.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { LedgerOptions } from "../caps.js";
import type { MergedRun } from "../compaction.js";
import { LedgerCore, type Row, type Sql } from "../core.js";
import type { Dialect } from "../dialect.js";
import { SQLITE_SEARCH } from "../search-query.js";
import type { PendingEvent } from "../group-commit.js";
import { checkedSession } from "../row-checks.js";
import { SqliteCompaction } from "./compaction-sql.js";
import { CounterCache } from "./counter-cache.js";
import { Journal } from "./journal.js";
import { migrate } from "./migrations.js";
import type { BatchWriter } from "./sqlite-batch.js";
import { ledgerError } from "./sqlite-errors.js";
import { UpdatedAtStamps } from "./updated-at.js";
import { ReplayRows } from "./replay-rows.js";
import { EventSpool } from "./spool.js";
import { prepareStatements, type Statements } from "./statements.js";
import { SideWrites } from "./side-writes.js";
import { sqliteSecretStore, sqliteUserStore } from "./sqlite-users.js";
import type { SecretStore } from "../../contracts/user-secrets.js";
import type { UserStore } from "../../contracts/users.js";
import type { SessionRecord } from "../../engine/ledger-port.js";

export interface SqliteLedgerOptions extends LedgerOptions {
  /** How long to wait for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
}

const SQLITE: Dialect = {
  sessions: "sessions",
  sessionRows: "session_rows",
  events: "events",
  eventTables: ["events", "event_journal"],
  access: "session_access",
  usage: "usage",
  param: () => "?",
  bool: (value) => (value ? 1 : 0),
  search: SQLITE_SEARCH,
};

/** The writes held to the end of the tick and written together: a turn's usage row. */
const SIDE_WRITE = /^INSERT INTO usage /;

/** Writes that leave every session's counters as they are. */
const KEEPS_COUNTERS =
  /^(INSERT INTO usage |UPDATE sessions SET (?![^]*(next_seq|event_count|bytes)))/;

export class SqliteLedger extends LedgerCore {
  private readonly db: Database.Database;
  private readonly stmt: Statements;
  private readonly writer: BatchWriter;
  private readonly spool: EventSpool;
  private readonly statements = new Map<string, Database.Statement>();
  /** Writes held to the end of the tick (usage rows, audit lines). */
  private readonly side: SideWrites;
  private replayRows?: ReplayRows;
  private readonly compaction: SqliteCompaction;
  /** The hub's users, grants and audit log (issue 22), in this database. */
  readonly users: UserStore;
  /** The users' secrets, sealed (issue 36), in this database. */
  readonly secrets: SecretStore;

  constructor(
    readonly file: string,
    options: SqliteLedgerOptions = {},
  ) {
    super(options, SQLITE);
    try {
      if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
      this.db = new Database(file);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma("foreign_keys = ON");
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      // The search folds case as JavaScript does (SQLite's lower() knows only ASCII).
      this.db.function("acphub_lower", { deterministic: true }, (text) =>
        typeof text === "string" ? text.toLowerCase() : text,
      );
      migrate(this.db, file, this.logger);
      this.stmt = prepareStatements(this.db);
      this.writer = {
        db: this.db,
        stmt: this.stmt,
        caps: this.caps,
        counters: new CounterCache(this.db, this.stmt.counters),
        journal: new Journal(this.db, this.stmt, this.logger),
        stamps: new UpdatedAtStamps(this.db, this.logger),
      };
      this.spool = new EventSpool(this.writer, this.mask, this.logger);
      this.spool.fold(); // what a process killed (-9) left spooled
      this.compaction = new SqliteCompaction(
        this.db,
        this.stmt,
        this.writer.journal,
        this.writer.counters,
      );
      this.side = new SideWrites(this.db);
      this.users = sqliteUserStore(this.db, this.side);
      this.secrets = sqliteSecretStore(this.db);
    } catch (error) {
      throw ledgerError(file, error);
    }
    // The first pass runs now, synchronously; a failure is logged, the next pass tries again.
    this.startRetention().catch((error: unknown) =>
      this.logger.warn({ err: String(error) }, "ledger: retention pass failed"),
    );
  }

  /** Runs SQLite work, turning its failures into one line naming the file. */
  private run<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(ledgerError(this.file, error));
    }
  }

  /** Reads with every spooled event (any connection's) in the log (./spool.ts). */
  private reading<T>(work: () => T): Promise<T> {
    return this.run(() => this.spool.read(work));
  }

  /** Writes with every spooled event folded into the log first. */
  private writing<T>(work: () => T): Promise<T> {
    return this.run(() => {
      this.spool.fold();
      return work();
    });
  }

  // A statement prepared once per distinct text; its rows (none for a plain write). A read sees
  // every spooled event. A write may change counters (a fork's, a deleted session's): the spool
  // is folded before it, and the batch writer reads the counters again, unless it is one that
  // never does (a usage row, a session's title or state: one per turn, and each would have every
  // streaming session's counters read again; on a full disk, it may still fit where a fold
  // does not).
  private exec({ text, args }: Sql): Row[] {
    const statement = this.prepared(text);
    // (A write that returns rows, `DELETE … RETURNING`, is a reader to better-sqlite3: it
    // changes counters all the same.)
    if (!statement.readonly && !KEEPS_COUNTERS.test(text)) {
      if (!this.db.inTransaction) this.spool.fold();
      this.writer.counters.clear();
    }
    if (statement.reader) {
      const rows = () => statement.all(...args) as Row[];
      return this.db.inTransaction ? rows() : this.spool.read(rows);
    }
    statement.run(...args);
    return [];
  }

  private prepared(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement)
      this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  /** Core: one statement, synchronously (the promise is settled on return); a turn's usage row
   *  at the end of the tick, with the others then (./side-writes.ts). */
  protected query(statement: Sql): Promise<Row[]> {
    if (!SIDE_WRITE.test(statement.text))
      return this.run(() => this.exec(statement));
    return this.side.add(this.prepared(statement.text), statement.args).then(
      () => [],
      (error: unknown) => Promise.reject(ledgerError(this.file, error)),
    );
  }

  /** Core: statements in one synchronous transaction. */
  protected transact(statements: Sql[]): Promise<Row[][]> {
    return this.writing(() =>
      this.db.transaction(() => statements.map((s) => this.exec(s)))(),
    );
  }

  /** LedgerPort: a session's record, its counters counting its spooled events. Read without a
   *  fold when this connection knows what the spool holds of the session: a prompt reads its
   *  session, and each such read folded every streaming session's rows (a fold per turn). */
  override getSession(id: string): Promise<SessionRecord | undefined> {
    const spooled = this.spool.spooledAfter(id, 0);
    if (!spooled) return super.getSession(id);
    return this.run(() => {
      const row = this.stmt.sessionRow.get(id) as Row | undefined;
      if (row && spooled.count > 0) {
        row["event_count"] = Number(row["event_count"]) + spooled.count;
        row["bytes"] = Number(row["bytes"]) + spooled.bytes;
      }
      return checkedSession(row, id, this.logger);
    });
  }

  /** EventStore: one group-commit batch in one transaction. */
  writeBatch(batch: PendingEvent[]): (number | undefined)[] {
    try {
      return this.spool.writeBatch(batch);
    } catch (error) {
      throw ledgerError(this.file, error);
    }
  }

  /** EventStore: a session's rows as [seq, kind, text, at]. */
  readRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]> {
    const args = [sessionId, afterSeq, uptoSeq];
    return this.reading(
      () => this.stmt.read.raw().all(...args, ...args) as unknown[][],
    );
  }

  /** EventStore: a replay's rows, plain updates made into frames by SQLite. */
  readReplayRows(sessionId: string, head: string): Promise<unknown[][]> {
    return this.reading(() =>
      (this.replayRows ??= new ReplayRows(this.db)).rows(sessionId, head),
    );
  }

  /** EventStore: one page of a session's rows, from either end. */
  readPageRows(
    sessionId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
    newest: boolean,
  ): Promise<unknown[][]> {
    const stmt = newest ? this.stmt.pageDown : this.stmt.pageUp;
    const args = [sessionId, afterSeq, beforeSeq];
    return this.reading(
      () => stmt.raw().all(...args, ...args, limit) as unknown[][],
    );
  }

  /** LedgerPort: a finished turn's compaction folds no spool once its rows left the spool (at
   *  the next fold, within FOLD_MS): a fold per compaction folded every streaming session's
   *  rows, which then cost the log a row per message per compaction. */
  whenCompactable(sessionId: string, uptoSeq: number): Promise<void> {
    return this.spool.spooledAfter(sessionId, uptoSeq)
      ? Promise.resolve()
      : this.spool.nextFold();
  }

  /** EventStore: a turn's `update` rows, for its compaction (the spool folded first only when
   *  it may hold some of them). */
  readUpdateRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]> {
    const rows = () => this.compaction.updateRows(sessionId, afterSeq, uptoSeq);
    return this.spool.spooledAfter(sessionId, uptoSeq)
      ? this.run(rows)
      : this.reading(rows);
  }

  /** EventStore: a finished turn's rows move out of the journal, merged runs or none. */
  readonly settlesTurns = true;

  /** EventStore: merged runs written in one transaction (./compaction-sql.ts); the spool is
   *  folded first only when it may hold some of their events. */
  applyRuns(sessionId: string, runs: MergedRun[]): Promise<void> {
    const last = runs.length > 0 ? runs[runs.length - 1]!.lastSeq : 0;
    const apply = () => this.compaction.apply(sessionId, runs);
    return this.spool.spooledAfter(sessionId, last)
      ? this.run(apply)
      : this.writing(apply);
  }

  /** Core: a session's journal rows moved into `events`, before the core copies them (fork). */
  protected override settleEvents(sessionId: string): Promise<void> {
    return this.writing(() =>
      this.db.transaction(() => this.writer.journal.moveSession(sessionId))(),
    );
  }

  /** Core: closes the database file, its journal moved into `events` first. */
  protected disconnect(): Promise<void> {
    if (!this.db.open) return Promise.resolve();
    this.side.flush();
    try {
      this.spool.fold();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: folding the event spool on close failed; the next open folds it",
      );
    }
    try {
      this.writer.stamps.flush();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: writing sessions' updated_at on close failed",
      );
    }
    try {
      this.writer.journal.moveAll();
    } catch (error) {
      this.logger.warn(
        { err: String(error) },
        "ledger: moving the event journal on close failed; its rows stay in the journal",
      );
    }
    this.db.close();
    return Promise.resolve();
  }
}
