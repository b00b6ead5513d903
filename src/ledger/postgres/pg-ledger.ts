// The ledger on PostgreSQL, for several acphub processes (or machines) sharing one ledger: the
// same port and guarantees as the SQLite ledger, the same group commit, and LISTEN/NOTIFY so that
// a session written through one process can be followed live through another.
import { randomUUID } from "node:crypto";
import pg from "pg";
import type {
  LedgerEvent,
  LedgerEventKind,
  LedgerPort,
  ListFilter,
  ListPage,
  NewSessionRecord,
  ReadOptions,
  SessionPatch,
  SessionRecord,
  StoredEvent,
} from "../../gateway/ledger-port.js";
import { HubError } from "../../shared/errors.js";
import { silentLogger, type Logger } from "../../shared/logger.js";
import {
  DAY_MS,
  DEFAULT_LEDGER_CAPS,
  type LedgerCaps,
  type LedgerOptions,
} from "../caps.js";
import { planCompaction } from "../compaction.js";
import { decodeCursor, encodeCursor, pageLimit } from "../cursor.js";
import { Followers } from "../followers.js";
import { GroupCommit, type PendingEvent } from "../group-commit.js";
import { toEvent, toSession, toStored } from "../row-checks.js";
import { writePgBatch } from "./pg-batch.js";
import { PgListener } from "./pg-listen.js";
import { maskUrl, pgError, withRetry } from "./pg-retry.js";
import { migratePg } from "./pg-schema.js";

export interface PostgresLedgerOptions extends LedgerOptions {
  /** How long appends retry while PostgreSQL is unreachable before the turn fails (ms). */
  retryMs?: number;
  /** How long to wait for a connection when opening (ms). */
  connectTimeoutMs?: number;
}

const SESSION_COLUMNS: Record<string, string> = {
  title: "title",
  state: "state",
  agentSessionId: "agent_session_id",
  updatedAt: "updated_at",
};

export class PostgresLedger implements LedgerPort {
  private readonly caps: LedgerCaps;
  private readonly logger: Logger;
  private readonly mask: (text: string) => string;
  private readonly writer: GroupCommit;
  private readonly followers: Followers;
  private readonly listener: PgListener;
  private readonly instance = randomUUID();
  private readonly retryMs: number;
  /** The URL with its password masked, as errors and logs name it. */
  readonly where: string;
  private retention: NodeJS.Timeout | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
    options: PostgresLedgerOptions,
  ) {
    this.where = maskUrl(url);
    this.caps = { ...DEFAULT_LEDGER_CAPS, ...options.caps };
    this.logger = options.logger ?? silentLogger();
    this.mask = options.mask ?? ((text) => text);
    this.retryMs = options.retryMs ?? 15_000;
    this.followers = new Followers(this.logger);
    this.listener = new PgListener(
      url,
      this.instance,
      this.followers,
      this.logger,
    );
    this.writer = new GroupCommit((batch) => this.commit(batch), options.batch);
    // A connection lost while checked out also errors on its client: the query fails and is
    // retried, so the event itself only needs logging.
    pool.on("connect", (client) =>
      client.on("error", (error) =>
        this.logger.warn({ err: error.message }, "ledger: connection lost"),
      ),
    );
    pool.on("error", (error) =>
      this.logger.warn({ err: error.message }, "ledger: idle connection lost"),
    );
  }

  /** Connects and migrates; an unreachable server is one HubError naming the URL. */
  static async open(
    url: string,
    options: PostgresLedgerOptions = {},
  ): Promise<PostgresLedger> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 4,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    });
    const ledger = new PostgresLedger(pool, url, options);
    try {
      const client = await pool.connect();
      try {
        await migratePg(client, ledger.where);
      } finally {
        client.release();
      }
      await ledger.expire();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw pgError(ledger.where, error);
    }
    if (ledger.caps.retentionDays !== null) {
      ledger.retention = setInterval(
        () => void ledger.expire().catch(() => undefined),
        DAY_MS,
      );
      ledger.retention.unref();
    }
    return ledger;
  }

  private query<R extends pg.QueryResultRow>(
    sql: string,
    args: unknown[] = [],
  ) {
    return withRetry(this.where, this.retryMs, () =>
      this.pool.query<R>(sql, args),
    );
  }

  // Runs `work` in one transaction, retried as a whole after a lost connection.
  private transaction<T>(
    work: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    return withRetry(this.where, this.retryMs, async () => {
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    });
  }

  // One group-commit batch in one transaction; appends settle after COMMIT.
  private async commit(batch: PendingEvent[]): Promise<void> {
    const seqs = await this.transaction((client) =>
      writePgBatch(client, this.caps, batch, this.instance),
    );
    const last = new Map<string, number>();
    batch.forEach((event, i) => {
      const seq = seqs[i];
      if (seq === undefined)
        event.reject(
          new HubError(
            "SESSION_NOT_FOUND",
            `ledger: no session ${event.sessionId}`,
          ),
        );
      else {
        last.set(event.sessionId, seq);
        event.resolve(seq);
      }
    });
    for (const [id, seq] of last) this.followers.emit(id, seq);
  }

  private sessionArgs(record: NewSessionRecord): unknown[] {
    return [
      record.id,
      record.agent,
      record.cwd,
      record.title === null ? null : this.mask(record.title),
      record.createdAt,
      record.updatedAt,
      record.state,
      record.agentSessionId,
      this.mask(JSON.stringify(record.request)),
    ];
  }

  async createSession(record: NewSessionRecord): Promise<void> {
    await this.transaction(async (client) => {
      await client.query(
        `INSERT INTO acphub_sessions (id, agent, cwd, title, created_at, updated_at, state, agent_session_id, request)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        this.sessionArgs(record),
      );
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
    await this.query("DELETE FROM acphub_sessions WHERE updated_at < $1", [
      before,
    ]);
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.query(
      "SELECT * FROM acphub_sessions WHERE id = $1",
      [id],
    );
    const row = rows[0];
    const record = row === undefined ? undefined : toSession(row);
    if (row !== undefined && !record)
      this.logger.warn(
        { sessionId: id },
        "ledger: damaged session row ignored",
      );
    return record;
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const keys = Object.keys(patch).filter((k) => k in SESSION_COLUMNS);
    if (keys.length === 0) return;
    const values = keys.map((k) => {
      const v = patch[k as keyof SessionPatch];
      return k === "title" && typeof v === "string" ? this.mask(v) : v;
    });
    const sets = keys.map((k, i) => `${SESSION_COLUMNS[k]} = $${i + 2}`);
    await this.query(
      `UPDATE acphub_sessions SET ${sets.join(", ")} WHERE id = $1`,
      [id, ...values],
    );
  }

  async deleteSession(id: string): Promise<boolean> {
    const result = await this.query(
      "DELETE FROM acphub_sessions WHERE id = $1",
      [id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async listSessions(filter: ListFilter): Promise<ListPage> {
    const limit = pageLimit(filter.limit);
    const after = decodeCursor(filter.cursor);
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.cwd) where.push(`cwd = $${args.push(filter.cwd)}`);
    if (after) {
      const u = args.push(after.updatedAt);
      where.push(
        `(updated_at < $${u} OR (updated_at = $${u} AND id > $${args.push(after.id)}))`,
      );
    }
    const sql = `SELECT * FROM acphub_sessions ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY updated_at DESC, id ASC LIMIT $${args.push(limit + 1)}`;
    const { rows } = await this.query(sql, args);
    const sessions = rows
      .slice(0, limit)
      .map(toSession)
      .filter((s): s is SessionRecord => s !== undefined);
    const last = sessions.at(-1);
    return {
      sessions,
      nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  append(
    sessionId: string,
    kind: LedgerEventKind,
    payload: string | Record<string, unknown>,
  ): Promise<number> {
    const text =
      typeof payload === "string" ? payload : JSON.stringify(payload);
    return this.writer.add(sessionId, kind, this.mask(text));
  }

  async read(
    sessionId: string,
    options: ReadOptions = {},
  ): Promise<StoredEvent[]> {
    const { rows } = await this.query(
      `SELECT seq, kind, payload::text AS payload, at FROM acphub_events
       WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [
        sessionId,
        options.afterSeq ?? 0,
        options.uptoSeq ?? Number.MAX_SAFE_INTEGER,
      ],
    );
    const out: StoredEvent[] = [];
    for (const row of rows) {
      const stored = toStored(row);
      if (stored && stored.text.startsWith("{")) out.push(stored);
      else
        this.logger.warn(
          { sessionId, seq: row["seq"] },
          "ledger: damaged event row skipped",
        );
    }
    return out;
  }

  async events(
    sessionId: string,
    options?: ReadOptions,
  ): Promise<LedgerEvent[]> {
    const out: LedgerEvent[] = [];
    for (const stored of await this.read(sessionId, options)) {
      const event = toEvent(stored);
      if (event) out.push(event);
      else
        this.logger.warn(
          { sessionId, seq: stored.seq },
          "ledger: damaged event row skipped",
        );
    }
    return out;
  }

  async compact(sessionId: string, afterSeq: number): Promise<void> {
    await this.writer.drain();
    const plan = planCompaction(await this.read(sessionId, { afterSeq }));
    if (plan.remove.length === 0) return;
    const texts = plan.rewrite.map((r) => this.mask(r.text));
    await this.transaction(async (client) => {
      await client.query(
        "DELETE FROM acphub_events WHERE session_id = $1 AND seq = ANY($2::bigint[])",
        [sessionId, plan.remove],
      );
      await client.query(
        `UPDATE acphub_events e SET payload = u.text::json, bytes = octet_length(u.text)
         FROM unnest($2::bigint[], $3::text[]) AS u(seq, text) WHERE e.session_id = $1 AND e.seq = u.seq`,
        [sessionId, plan.rewrite.map((r) => r.seq), texts],
      );
      await client.query(
        `UPDATE acphub_sessions SET event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = $1),
           bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = $1) WHERE id = $1`,
        [sessionId],
      );
    });
  }

  async copySession(
    fromId: string,
    record: NewSessionRecord,
    uptoSeq?: number,
  ): Promise<void> {
    await this.writer.drain();
    const from = await this.getSession(fromId);
    if (!from)
      throw new HubError("SESSION_NOT_FOUND", `ledger: no session ${fromId}`);
    await this.transaction(async (client) => {
      await client.query(
        `INSERT INTO acphub_sessions (id, agent, cwd, title, created_at, updated_at, state, agent_session_id, request)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        this.sessionArgs(record),
      );
      await client.query(
        `INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
         SELECT $1, seq, kind, payload, bytes, at FROM acphub_events WHERE session_id = $2 AND seq <= $3`,
        [record.id, fromId, uptoSeq ?? Number.MAX_SAFE_INTEGER],
      );
      await client.query(
        `UPDATE acphub_sessions SET incomplete = $2,
           event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = $1),
           bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = $1),
           next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM acphub_events WHERE session_id = $1)
         WHERE id = $1`,
        [record.id, from.incomplete],
      );
      await this.evictSessions(client, record.id);
    });
  }

  follow(sessionId: string, listener: (lastSeq: number) => void): () => void {
    void this.listener.start();
    return this.followers.add(sessionId, listener);
  }

  async close(): Promise<void> {
    await this.writer.drain();
    if (this.retention) clearInterval(this.retention);
    await this.listener.close();
    await this.pool.end();
  }
}
