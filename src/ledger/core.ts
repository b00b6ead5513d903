// The ledger both engines are: sessions (the column map, eviction past maxSessions, retention
// expiry, listing, fork) and the event log over group commit, written once here as SQL in the
// engine's dialect. An engine only connects, runs statements (one, or several in one
// transaction) and implements the EventStore: writing a batch, reading rows, applying runs.
import type {
  LedgerPort,
  ListFilter,
  ListPage,
  NewSessionRecord,
  SearchFilter,
  SessionPatch,
  SessionRecord,
  StoredUsage,
  UsageEntry,
} from "../engine/ledger-port.js";
import { withDefaults } from "../shared/defaults.js";
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import {
  DAY_MS,
  DEFAULT_LEDGER_CAPS,
  type LedgerCaps,
  type LedgerOptions,
} from "./caps.js";
import type { MergedRun } from "./compaction.js";
import { EventLog, type EventMethods, type EventStore } from "./event-log.js";
import type { PendingEvent } from "./group-commit.js";
import type { Dialect } from "./dialect.js";
import { listQuery, toPage } from "./list-query.js";
import { searchQuery } from "./search-query.js";
import { checkedSession, sessionValues } from "./row-checks.js";
import { insertUsage, selectUsage, toUsage, usageArgs } from "./usage-table.js";

/** One statement: its text (tables and placeholders in the engine's dialect) and arguments. */
export interface Sql {
  text: string;
  args: unknown[];
}

export type Row = Record<string, unknown>;

/** The record's fields as stored, column by column: the one column map of a session row. */
const COLUMNS = {
  id: "id",
  agent: "agent",
  cwd: "cwd",
  title: "title",
  createdAt: "created_at",
  updatedAt: "updated_at",
  state: "state",
  agentSessionId: "agent_session_id",
  request: "request",
  settings: "settings",
  forkedFrom: "forked_from",
} as const;

/** The fields a patch may change. */
const PATCHABLE = new Set(["title", "state", "agentSessionId", "updatedAt"]);

export abstract class LedgerCore implements LedgerPort, EventStore {
  append!: EventMethods["append"];
  appendTo!: EventMethods["appendTo"];
  afterAppends!: EventMethods["afterAppends"];
  read!: EventMethods["read"];
  readPage!: EventMethods["readPage"];
  readReplay!: EventMethods["readReplay"];
  events!: EventMethods["events"];
  compact!: EventMethods["compact"];
  follow!: EventMethods["follow"];
  protected readonly caps: LedgerCaps;
  protected readonly logger: Logger;
  protected readonly mask: (text: string) => string;
  protected readonly log: EventLog;
  private retention: NodeJS.Timeout | undefined;
  private readonly usageWrites = new Set<Promise<void>>();

  protected constructor(
    options: LedgerOptions,
    private readonly dialect: Dialect,
  ) {
    this.caps = withDefaults(DEFAULT_LEDGER_CAPS, options.caps);
    this.logger = options.logger ?? silentLogger();
    this.mask = options.mask ?? ((text) => text);
    this.log = new EventLog(
      this,
      this.logger,
      this.mask,
      options.batch,
      options.onBatch,
    );
    Object.assign(this, this.log.methods());
  }

  /** EventStore: one group-commit batch in one transaction; the seq of each event. */
  abstract writeBatch(
    batch: PendingEvent[],
  ): Promise<(number | undefined)[]> | (number | undefined)[];
  /** EventStore: a session's rows as [seq, kind, text, at]. */
  abstract readRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]>;
  /** EventStore: one page of a session's rows, from either end. */
  abstract readPageRows(
    sessionId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
    newest: boolean,
  ): Promise<unknown[][]>;
  /** EventStore: merged runs written in one transaction, counters redone. */
  abstract applyRuns(sessionId: string, runs: MergedRun[]): Promise<void>;
  /** Runs one statement; the rows it returns (none for a write without RETURNING). */
  protected abstract query(statement: Sql): Promise<Row[]>;
  /** Runs statements in order in one transaction; the rows of each. */
  protected abstract transact(statements: Sql[]): Promise<Row[][]>;
  /** Closes the connection (the log is drained first). */
  protected abstract disconnect(): Promise<void>;

  /** Before a fork copies a session's events: an engine that keeps some apart (SQLite's
   * journal) puts them with the rest. */
  protected settleEvents(sessionId: string): Promise<void> {
    void sessionId;
    return Promise.resolve();
  }

  // A statement whose `?` marks become the dialect's placeholders.
  private sql(text: string, ...args: unknown[]): Sql {
    let n = 0;
    return { text: text.replace(/\?/g, () => this.dialect.param(++n)), args };
  }

  /** Deletes the sessions past retentionDays now, then daily; resolves after the first pass. */
  protected startRetention(): Promise<void> {
    if (this.caps.retentionDays === null) return Promise.resolve();
    this.retention = setInterval(
      () => void this.expire().catch(() => undefined),
      DAY_MS,
    );
    this.retention.unref();
    return this.expire();
  }

  // Deletes the sessions past ledger.retentionDays.
  private async expire(): Promise<void> {
    if (this.caps.retentionDays === null) return;
    const before = Date.now() - this.caps.retentionDays * DAY_MS;
    const { sessions } = this.dialect;
    const rows = await this.query(
      this.sql(
        `DELETE FROM ${sessions} WHERE updated_at < ? RETURNING id`,
        before,
      ),
    );
    this.logIds(rows, "ledger: session past retentionDays deleted");
  }

  // One info line per session a statement deleted (its RETURNING id rows).
  private logIds(rows: Row[], message: string): void {
    for (const { id } of rows) this.logger.info({ sessionId: id }, message);
  }

  // The insert of a new session row: known secrets masked, JSON as text.
  private insertSession(record: NewSessionRecord): Sql {
    const values: Record<keyof typeof COLUMNS, unknown> = {
      ...record,
      ...sessionValues(record, this.mask),
    };
    const keys = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
    return this.sql(
      `INSERT INTO ${this.dialect.sessions} (${keys.map((k) => COLUMNS[k]).join(", ")})
       VALUES (${keys.map(() => "?").join(", ")})`,
      ...keys.map((k) => values[k] ?? null),
    );
  }

  // Past maxSessions, the least recently updated sessions go (never the one just created). The
  // oldest are taken from their end of the updated_at index, as many as the count exceeds the
  // cap: skipping the newest maxSessions − 1 with an OFFSET instead sorted every session on each
  // insert (2.7 ms per new session at the default 10,000 on SQLite, growing with the count).
  private evictSessions(keep: string): Sql {
    const { sessions } = this.dialect;
    const cap = this.caps.maxSessions;
    return this.sql(
      `DELETE FROM ${sessions} WHERE id IN (
         SELECT id FROM ${sessions} WHERE id <> ? ORDER BY updated_at, id
         LIMIT (SELECT CASE WHEN COUNT(*) > ? THEN COUNT(*) - ? ELSE 0 END FROM ${sessions})
       ) RETURNING id`,
      keep,
      cap,
      cap,
    );
  }

  async createSession(record: NewSessionRecord): Promise<void> {
    const done = await this.transact([
      this.insertSession(record),
      this.evictSessions(record.id),
    ]);
    this.logEvicted(done);
  }

  // The eviction is the last statement of a session insert: its rows are the sessions evicted.
  private logEvicted(done: Row[][]): void {
    const evicted = done.at(-1) ?? [];
    this.logIds(evicted, "ledger: evicting the oldest session (maxSessions)");
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const rows = await this.query(
      this.sql(`SELECT * FROM ${this.dialect.sessionRows} WHERE id = ?`, id),
    );
    return checkedSession(rows[0], id, this.logger);
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const keys = Object.keys(patch).filter((k) => PATCHABLE.has(k));
    if (keys.length === 0) return;
    const values = keys.map((k) => {
      const v = patch[k as keyof SessionPatch];
      return k === "title" && typeof v === "string"
        ? this.mask(v)
        : (v ?? null);
    });
    const sets = keys.map((k) => `${COLUMNS[k as keyof typeof COLUMNS]} = ?`);
    await this.query(
      this.sql(
        `UPDATE ${this.dialect.sessions} SET ${sets.join(", ")} WHERE id = ?`,
        ...values,
        id,
      ),
    );
  }

  async deleteSession(id: string): Promise<boolean> {
    const { sessions } = this.dialect;
    const rows = await this.query(
      this.sql(`DELETE FROM ${sessions} WHERE id = ? RETURNING id`, id),
    );
    return rows.length > 0;
  }

  async listSessions(filter: ListFilter): Promise<ListPage> {
    const q = listQuery(this.dialect, filter);
    return toPage(await this.query({ text: q.sql, args: q.args }), q.limit);
  }

  async searchSessions(filter: SearchFilter): Promise<string[]> {
    const q = searchQuery(this.dialect, filter);
    const rows = await this.query({ text: q.sql, args: q.args });
    return rows.map((row) => String(row["id"]));
  }

  async saveSettings(
    sessionId: string,
    settings: Record<string, unknown>,
  ): Promise<void> {
    const { sessions } = this.dialect;
    await this.query(
      this.sql(
        `UPDATE ${sessions} SET settings = ? WHERE id = ?`,
        JSON.stringify(settings),
        sessionId,
      ),
    );
  }

  async copySession(
    fromId: string,
    record: NewSessionRecord,
    uptoSeq?: number,
  ): Promise<void> {
    await this.log.drain();
    await this.settleEvents(fromId);
    const from = await this.getSession(fromId);
    if (!from)
      throw new HubError("SESSION_NOT_FOUND", `ledger: no session ${fromId}`);
    const done = await this.transact([
      this.insertSession(record),
      ...this.copyEvents(fromId, record.id, uptoSeq, from.incomplete),
      this.evictSessions(record.id),
    ]);
    this.logEvicted(done);
  }

  // Copies a session's events up to a sequence number into another (fork), counters included.
  private copyEvents(
    fromId: string,
    toId: string,
    uptoSeq: number | undefined,
    incomplete: boolean,
  ): Sql[] {
    const { sessions, events } = this.dialect;
    const inCopy = `FROM ${events} WHERE session_id = ?`;
    return [
      this.sql(
        `INSERT INTO ${events} (session_id, seq, kind, payload, bytes, at)
         SELECT ?, seq, kind, payload, bytes, at ${inCopy} AND seq <= ?`,
        toId,
        fromId,
        uptoSeq ?? Number.MAX_SAFE_INTEGER,
      ),
      this.sql(
        `UPDATE ${sessions} SET incomplete = ?,
           event_count = (SELECT COUNT(*) ${inCopy}),
           bytes = (SELECT COALESCE(SUM(bytes), 0) ${inCopy}),
           next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 ${inCopy})
         WHERE id = ?`,
        this.dialect.bool(incomplete),
        toId,
        toId,
        toId,
        toId,
      ),
    ];
  }

  // Kept until written: close() waits for the rows on their way.
  recordUsage(entry: UsageEntry): Promise<void> {
    const { usage, param } = this.dialect;
    const write = this.query({
      text: insertUsage(usage, param),
      args: usageArgs(entry),
    }).then(() => undefined);
    this.usageWrites.add(write);
    const forget = () => this.usageWrites.delete(write);
    write.then(forget, forget);
    return write;
  }

  async readUsage(since: number): Promise<StoredUsage[]> {
    const { usage, param } = this.dialect;
    const rows = await this.query({
      text: selectUsage(usage, param),
      args: [since],
    });
    return rows.flatMap((row) => toUsage(row) ?? []);
  }

  async close(): Promise<void> {
    await this.log.drain();
    await Promise.allSettled([...this.usageWrites]);
    if (this.retention) clearInterval(this.retention);
    await this.disconnect();
  }
}
