// The ledger in SQLite (WAL), the embedded default: sessions and an append-only event log per
// session. Appends are grouped (one transaction per tick or bound) and each resolves after its
// commit, so nothing is relayed before it is on disk; it survives kill -9 of acphub.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type {
  LedgerPort,
  ListFilter,
  ListPage,
  NewSessionRecord,
  SessionPatch,
  SessionRecord,
} from "../../engine/ledger-port.js";
import { withDefaults } from "../../shared/defaults.js";
import { HubError } from "../../shared/errors.js";
import { silentLogger, type Logger } from "../../shared/logger.js";
import {
  DAY_MS,
  DEFAULT_LEDGER_CAPS,
  type LedgerCaps,
  type LedgerOptions,
} from "../caps.js";
import { listQuery, toPage } from "../list-query.js";
import type { MergedRun } from "../compaction.js";
import { EventLog, type EventMethods, type EventStore } from "../event-log.js";
import type { PendingEvent } from "../group-commit.js";
import { checkedSession, sessionValues } from "../row-checks.js";
import { migrate } from "./migrations.js";
import { writeBatch } from "./sqlite-batch.js";
import { ledgerError } from "./sqlite-errors.js";
import { prepareStatements, type Statements } from "./statements.js";
import { sqliteUserStore } from "./sqlite-users.js";
import type { UserStore } from "../../contracts/users.js";

export interface SqliteLedgerOptions extends LedgerOptions {
  /** How long to wait for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
}

export class SqliteLedger implements LedgerPort, EventStore {
  append!: EventMethods["append"];
  read!: EventMethods["read"];
  events!: EventMethods["events"];
  compact!: EventMethods["compact"];
  follow!: EventMethods["follow"];
  private readonly db: Database.Database;
  private readonly stmt: Statements;
  private readonly caps: LedgerCaps;
  private readonly logger: Logger;
  private readonly mask: (text: string) => string;
  private readonly log: EventLog;
  private readonly retention: NodeJS.Timeout | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  /** The hub's users, grants and audit log (issue 22), in this database. */
  readonly users: UserStore;

  constructor(
    readonly file: string,
    options: SqliteLedgerOptions = {},
  ) {
    this.caps = withDefaults(DEFAULT_LEDGER_CAPS, options.caps);
    this.logger = options.logger ?? silentLogger();
    this.mask = options.mask ?? ((text) => text);
    try {
      if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
      this.db = new Database(file);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma("foreign_keys = ON");
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      migrate(this.db, file);
      this.stmt = prepareStatements(this.db);
      this.users = sqliteUserStore(this.db);
    } catch (error) {
      throw ledgerError(file, error);
    }
    this.log = new EventLog(this, this.logger, this.mask, options.batch);
    Object.assign(this, this.log.methods());
    this.expire();
    if (this.caps.retentionDays !== null) {
      this.retention = setInterval(() => this.expire(), DAY_MS);
      this.retention.unref();
    }
  }

  /** Runs SQLite work, turning its failures into one line naming the file. */
  private run<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(ledgerError(this.file, error));
    }
  }

  /** EventStore: one group-commit batch in one transaction. */
  writeBatch(batch: PendingEvent[]): (number | undefined)[] {
    try {
      return writeBatch(this.db, this.stmt, this.caps, batch);
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
    return this.run(
      () =>
        this.stmt.read.raw().all(sessionId, afterSeq, uptoSeq) as unknown[][],
    );
  }

  /** EventStore: merged runs written in one transaction, counters redone. */
  applyRuns(sessionId: string, runs: MergedRun[]): Promise<void> {
    return this.run(() =>
      this.db.transaction(() => {
        for (const { fromSeq, lastSeq, text } of runs) {
          this.stmt.deleteRange.run(sessionId, fromSeq, lastSeq);
          this.stmt.rewriteEvent.run(
            text,
            Buffer.byteLength(text),
            sessionId,
            lastSeq,
          );
        }
        this.stmt.recount.run({ id: sessionId });
      })(),
    );
  }

  createSession(record: NewSessionRecord): Promise<void> {
    return this.run(() =>
      this.db.transaction(() => {
        this.stmt.insertSession.run(this.sessionRow(record));
        this.evictSessions(record.id);
      })(),
    );
  }

  private sessionRow(record: NewSessionRecord) {
    return { ...record, ...sessionValues(record, this.mask) };
  }

  // Past maxSessions, the least recently updated sessions go (never the one just created).
  private evictSessions(keep: string): void {
    const { n } = this.stmt.countSessions.get() as { n: number };
    const excess = n - this.caps.maxSessions;
    if (excess <= 0) return;
    for (const { id } of this.stmt.oldestSessions.all(keep, excess) as {
      id: string;
    }[]) {
      this.logger.info(
        { sessionId: id },
        "ledger: evicting the oldest session (maxSessions)",
      );
      this.stmt.deleteSession.run(id);
    }
  }

  // Deletes the sessions past ledger.retentionDays.
  private expire(): void {
    if (this.caps.retentionDays === null) return;
    const before = Date.now() - this.caps.retentionDays * DAY_MS;
    for (const { id } of this.stmt.expired.all(before) as { id: string }[]) {
      this.logger.info(
        { sessionId: id },
        "ledger: session past retentionDays deleted",
      );
      this.stmt.deleteSession.run(id);
    }
  }

  getSession(id: string): Promise<SessionRecord | undefined> {
    return this.run(() =>
      checkedSession(this.stmt.getSession.get(id), id, this.logger),
    );
  }

  updateSession(id: string, patch: SessionPatch): Promise<void> {
    const columns: Record<string, string> = {
      title: "title",
      state: "state",
      agentSessionId: "agent_session_id",
      updatedAt: "updated_at",
    };
    const sets = Object.keys(patch).filter((k) => k in columns);
    if (sets.length === 0) return Promise.resolve();
    const sql = `UPDATE sessions SET ${sets.map((k) => `${columns[k]} = @${k}`).join(", ")} WHERE id = @id`;
    const title = patch.title ? this.mask(patch.title) : patch.title;
    return this.run(() => {
      this.prepared(sql).run({
        ...patch,
        ...("title" in patch ? { title } : {}),
        id,
      });
    });
  }

  // A statement built from the call's columns, prepared once per distinct text.
  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement)
      this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  deleteSession(id: string): Promise<boolean> {
    return this.run(() => this.stmt.deleteSession.run(id).changes > 0);
  }

  listSessions(filter: ListFilter): Promise<ListPage> {
    return this.run(() => {
      const q = listQuery("sessions", filter, () => "?");
      return toPage(this.prepared(q.sql).all(...q.args), q.limit);
    });
  }

  saveSettings(
    sessionId: string,
    settings: Record<string, unknown>,
  ): Promise<void> {
    return this.run(() => {
      this.stmt.saveSettings.run(JSON.stringify(settings), sessionId);
    });
  }

  async copySession(
    fromId: string,
    record: NewSessionRecord,
    uptoSeq?: number,
  ): Promise<void> {
    await this.log.drain();
    const from = await this.getSession(fromId);
    if (!from)
      throw new HubError("SESSION_NOT_FOUND", `ledger: no session ${fromId}`);
    return this.run(() =>
      this.db.transaction(() => {
        this.stmt.insertSession.run(this.sessionRow(record));
        this.stmt.copyEvents.run(
          record.id,
          fromId,
          uptoSeq ?? Number.MAX_SAFE_INTEGER,
        );
        this.stmt.afterCopy.run({
          id: record.id,
          incomplete: from.incomplete ? 1 : 0,
        });
        this.evictSessions(record.id);
      })(),
    );
  }

  async close(): Promise<void> {
    await this.log.drain();
    if (this.retention) clearInterval(this.retention);
    if (this.db.open) this.db.close();
  }
}
