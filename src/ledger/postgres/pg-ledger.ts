// The ledger on PostgreSQL, for several acphub processes (or machines) sharing one ledger: the
// same port and guarantees as the SQLite ledger, the same group commit, and LISTEN/NOTIFY so that
// a session written through one process can be followed live through another.
import { randomUUID } from "node:crypto";
import pg from "pg";
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
import { writePgBatch } from "./pg-batch.js";
import { compactPg, copyEventsPg, insertSessionPg } from "./pg-writes.js";
import { PgListener } from "./pg-listen.js";
import { PgConnection, type PgConnectionOptions } from "./pg-connection.js";
import { pgUserStore } from "./pg-users.js";
import type { UserStore } from "../../contracts/users.js";

export interface PostgresLedgerOptions
  extends LedgerOptions, PgConnectionOptions {}

const SESSION_COLUMNS: Record<string, string> = {
  title: "title",
  state: "state",
  agentSessionId: "agent_session_id",
  updatedAt: "updated_at",
};

export class PostgresLedger implements LedgerPort, EventStore {
  append!: EventMethods["append"];
  read!: EventMethods["read"];
  events!: EventMethods["events"];
  compact!: EventMethods["compact"];
  follow!: EventMethods["follow"];
  private readonly caps: LedgerCaps;
  private readonly logger: Logger;
  private readonly mask: (text: string) => string;
  private readonly log: EventLog;
  private readonly listener: PgListener;
  private readonly instance = randomUUID();
  private retention: NodeJS.Timeout | undefined;
  /** The hub's users, grants and audit log (issue 22), in this database. */
  readonly users: UserStore;

  private constructor(
    private readonly db: PgConnection,
    options: PostgresLedgerOptions,
  ) {
    this.caps = withDefaults(DEFAULT_LEDGER_CAPS, options.caps);
    this.logger = options.logger ?? silentLogger();
    this.mask = options.mask ?? ((text) => text);
    this.users = pgUserStore(db);
    this.log = new EventLog(this, this.logger, this.mask, options.batch);
    Object.assign(this, this.log.methods());
    this.listener = new PgListener(
      db.url,
      this.instance,
      this.log.followers,
      this.logger,
    );
    // Following starts the LISTEN connection (once): other processes' batches arrive too.
    this.follow = (sessionId, listener) => {
      void this.listener.start();
      return this.log.follow(sessionId, listener);
    };
  }

  /** The URL with its password masked, as errors and logs name it. */
  get where(): string {
    return this.db.where;
  }

  /** Connects and migrates; an unreachable server is one HubError naming the URL. */
  static async open(
    url: string,
    options: PostgresLedgerOptions = {},
  ): Promise<PostgresLedger> {
    const logger = options.logger ?? silentLogger();
    const db = new PgConnection(url, options, logger);
    await db.open();
    const ledger = new PostgresLedger(db, options);
    await ledger.expire();
    if (ledger.caps.retentionDays !== null) {
      ledger.retention = setInterval(
        () => void ledger.expire().catch(() => undefined),
        DAY_MS,
      );
      ledger.retention.unref();
    }
    return ledger;
  }

  /** EventStore: one group-commit batch in one transaction; appends settle after COMMIT. */
  writeBatch(batch: PendingEvent[]): Promise<(number | undefined)[]> {
    return this.db.transaction((client) =>
      writePgBatch(client, this.caps, batch, this.instance),
    );
  }

  /** EventStore: a session's rows as [seq, kind, text, at]. */
  async readRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]> {
    const { rows } = await this.db.query(
      `SELECT seq, kind, payload::text AS payload, at FROM acphub_events
       WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [sessionId, afterSeq, uptoSeq],
    );
    return rows.map((r) => [r["seq"], r["kind"], r["payload"], r["at"]]);
  }

  /** EventStore: merged runs written in one transaction, counters redone. */
  applyRuns(sessionId: string, runs: MergedRun[]): Promise<void> {
    return this.db.transaction((client) => compactPg(client, sessionId, runs));
  }

  private sessionArgs(record: NewSessionRecord): unknown[] {
    const v = sessionValues(record, this.mask);
    return [
      record.id,
      record.agent,
      record.cwd,
      v.title,
      record.createdAt,
      record.updatedAt,
      record.state,
      record.agentSessionId,
      v.request,
      v.settings,
      v.forkedFrom,
    ];
  }

  async createSession(record: NewSessionRecord): Promise<void> {
    await this.db.transaction(async (client) => {
      await insertSessionPg(client, this.sessionArgs(record));
      await this.evictSessions(client, record.id);
    });
  }

  // Past maxSessions, the least recently updated sessions go (never the one just created).
  private async evictSessions(
    client: pg.PoolClient,
    keep: string,
  ): Promise<void> {
    const { rows } = await client.query<{ id: string }>(
      `DELETE FROM acphub_sessions WHERE id IN (
         SELECT id FROM acphub_sessions WHERE id <> $1 ORDER BY updated_at DESC, id DESC OFFSET $2
       ) RETURNING id`,
      [keep, Math.max(this.caps.maxSessions - 1, 0)],
    );
    for (const { id } of rows)
      this.logger.info(
        { sessionId: id },
        "ledger: evicting the oldest session (maxSessions)",
      );
  }

  // Deletes the sessions past ledger.retentionDays.
  private async expire(): Promise<void> {
    if (this.caps.retentionDays === null) return;
    const before = Date.now() - this.caps.retentionDays * DAY_MS;
    await this.db.query("DELETE FROM acphub_sessions WHERE updated_at < $1", [
      before,
    ]);
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.db.query(
      "SELECT * FROM acphub_sessions WHERE id = $1",
      [id],
    );
    return checkedSession(rows[0], id, this.logger);
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const keys = Object.keys(patch).filter((k) => k in SESSION_COLUMNS);
    if (keys.length === 0) return;
    const values = keys.map((k) => {
      const v = patch[k as keyof SessionPatch];
      return k === "title" && typeof v === "string" ? this.mask(v) : v;
    });
    const sets = keys.map((k, i) => `${SESSION_COLUMNS[k]} = $${i + 2}`);
    await this.db.query(
      `UPDATE acphub_sessions SET ${sets.join(", ")} WHERE id = $1`,
      [id, ...values],
    );
  }

  async deleteSession(id: string): Promise<boolean> {
    const result = await this.db.query(
      "DELETE FROM acphub_sessions WHERE id = $1",
      [id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async listSessions(filter: ListFilter): Promise<ListPage> {
    const q = listQuery("acphub_sessions", filter, (n) => `$${n}`);
    return toPage((await this.db.query(q.sql, q.args)).rows, q.limit);
  }

  async saveSettings(
    sessionId: string,
    settings: Record<string, unknown>,
  ): Promise<void> {
    await this.db.query(
      "UPDATE acphub_sessions SET settings = $2 WHERE id = $1",
      [sessionId, JSON.stringify(settings)],
    );
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
    await this.db.transaction(async (client) => {
      await insertSessionPg(client, this.sessionArgs(record));
      await copyEventsPg(client, fromId, record.id, uptoSeq, from.incomplete);
      await this.evictSessions(client, record.id);
    });
  }

  async close(): Promise<void> {
    await this.log.drain();
    if (this.retention) clearInterval(this.retention);
    await this.listener.close();
    await this.db.end();
  }
}
