// The ledger on PostgreSQL, for several acphub processes (or machines) sharing one ledger: the
// same port and guarantees as the SQLite ledger (what both share lives in ../core.ts), the same
// group commit, and LISTEN/NOTIFY so that a session written through one process can be followed
// live through another. This adapter runs its SQL over a retrying pool and writes batches; the
// same pool and its one LISTEN connection serve a cluster of `acphub serve` nodes (`cluster`).
import { randomUUID } from "node:crypto";
import { silentLogger } from "../../shared/logger.js";
import type { LedgerOptions } from "../caps.js";
import type { MergedRun } from "../compaction.js";
import { LedgerCore, type Row, type Sql } from "../core.js";
import type { Dialect } from "../dialect.js";
import { POSTGRES_SEARCH } from "../search-query.js";
import {
  DEFAULT_BATCH_BOUNDS,
  type BatchBounds,
  type PendingEvent,
} from "../group-commit.js";
import {
  batchCall,
  CHANNEL,
  columnsOf,
  readBatchNotice,
  seqsOf,
  storedRows,
} from "./pg-batch.js";
import { compactPg } from "./pg-writes.js";
import { PgListener } from "./pg-listen.js";
import { pgReplayRows } from "./pg-replay.js";
import { PgUpdatedAtStamps } from "./pg-updated-at.js";
import { watchSchema } from "./pg-schema-watch.js";
import { PgConnection, type PgConnectionOptions } from "./pg-connection.js";
import { pgSecretStore, pgUserStore } from "./pg-users.js";
import type { SecretStore } from "../../contracts/user-secrets.js";
import { lastSeqs, pgClusterStore } from "./pg-cluster.js";
import type { UserStore } from "../../contracts/users.js";
import type { ClusterStore } from "../../contracts/cluster-store.js";

export interface PostgresLedgerOptions
  extends LedgerOptions, PgConnectionOptions {}

/**
 * While batches follow each other (a streaming agent), the next one gathers for 8 ms after the
 * previous commit, not SQLite's 2: each commit here costs the same whatever its size (the
 * server's ~0.7 ms of CPU per call, a round trip, the server process woken on a machine the
 * agent and the hub share). A turn of 20,000 updates made ~95 commits at 2 ms, ~35 at 8 ms. An
 * update alone is still committed on the next tick. Measured in docs/benchmarks.md, eighth round.
 */
const POSTGRES_BATCH_BOUNDS: BatchBounds = {
  ...DEFAULT_BATCH_BOUNDS,
  busyIntervalMs: 8,
};

/** How long a batch id is kept when its writer did not delete it (ms): longer than any retry. */
const BATCH_ID_KEEP_MS = 60 * 60 * 1000;

const POSTGRES: Dialect = {
  sessions: "acphub_sessions",
  sessionRows: "acphub_sessions",
  events: "acphub_events",
  eventTables: ["acphub_events"],
  access: "acphub_session_access",
  usage: "acphub_usage",
  param: (n) => `$${n}`,
  bool: (value) => value,
  search: POSTGRES_SEARCH,
};

export class PostgresLedger extends LedgerCore {
  private readonly listener: PgListener;
  private readonly instance = randomUUID();
  /** The ids of batches whose outcome this process knows (their rows can go). */
  private known: string[] = [];
  /** This process as a cluster node: its writes are fenced by the sessions' leases. */
  private node: string | undefined;
  /** The hub's users, grants and audit log (issue 22), in this database. */
  readonly users: UserStore;
  /** The users' secrets, sealed (issue 36), in this database. */
  readonly secrets: SecretStore;
  /** The nodes, leases and messages of a cluster of `acphub serve` processes on this ledger. */
  readonly cluster: ClusterStore;
  /** Set once something follows: this process hears other processes' batches from then on. */
  private heard: Promise<unknown> | undefined;
  /** Streaming sessions' `updated_at`, written at most once a second each. */
  private readonly stamps: PgUpdatedAtStamps;

  private constructor(
    private readonly db: PgConnection,
    options: PostgresLedgerOptions,
  ) {
    super({ batch: POSTGRES_BATCH_BOUNDS, ...options }, POSTGRES);
    this.users = pgUserStore(db);
    this.secrets = pgSecretStore(db);
    this.listener = new PgListener(db.url, this.logger);
    this.stamps = new PgUpdatedAtStamps(db, this.logger);
    this.cluster = pgClusterStore(db, this.listener, (id) => {
      this.node = id;
      // A node (`acphub serve`) hears a newer acphub migrating the database under it.
      void watchSchema(db, this.listener, this.logger);
    });
    this.follow = (sessionId, listener) => {
      this.heard ??= this.listener.listen(
        CHANNEL,
        (payload) => this.heardBatch(payload),
        () => void this.catchUp(),
      );
      return this.log.follow(sessionId, listener);
    };
  }

  // Passes on what another process committed (this process's own batches are told directly).
  private heardBatch(payload: string): void {
    const notice = readBatchNotice(payload);
    if (!notice)
      this.logger.warn({ payload }, "ledger: unreadable notification");
    else if (notice.instance !== this.instance)
      this.log.followers.emit(notice.sessionId, notice.seq);
  }

  // After the LISTEN connection was lost, every followed session may be behind: each follower
  // is told its session's last seq (one read), so it reads what no notification told.
  private async catchUp(): Promise<void> {
    const ids = this.log.followers.ids();
    if (ids.length === 0) return;
    try {
      for (const [id, last] of await lastSeqs(this.db, ids))
        this.log.followers.emit(id, last);
    } catch (error) {
      this.logger.warn({ err: error }, "ledger: followers not caught up");
    }
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
    await ledger.startRetention();
    // Batch ids a process left when it stopped (the last one's): past any retry by now.
    await db.query("DELETE FROM acphub_batches WHERE at < $1", [
      Date.now() - BATCH_ID_KEEP_MS,
    ]);
    return ledger;
  }

  /** Core: one statement on a pooled connection, retried while the server is away. */
  protected async query({ text, args }: Sql): Promise<Row[]> {
    return (await this.db.query(text, args)).rows;
  }

  /** Core: statements in one transaction, retried as a whole after a lost connection. */
  protected transact(statements: Sql[]): Promise<Row[][]> {
    return this.db.transaction(async (client) => {
      const done: Row[][] = [];
      for (const { text, args } of statements)
        done.push((await client.query(text, args)).rows as Row[]);
      return done;
    });
  }

  /**
   * EventStore: one group-commit batch in one statement (one round trip, its own transaction);
   * appends settle after it. A retry (the connection lost, maybe after the commit reached the
   * server) finds a committed attempt by the batch's id instead of storing it again; ids whose
   * outcome is known go with the next one.
   */
  async writeBatch(batch: PendingEvent[]): Promise<(number | undefined)[]> {
    const id = randomUUID();
    const forget = this.known;
    this.known = [id];
    const columns = columnsOf(batch);
    const stamps = this.stamps.stamps(columns.sessions, columns.lasts);
    const rows = storedRows(batch, columns, this.mask);
    const call = batchCall(this.caps, columns, rows, stamps, this.instance, {
      id,
      forget,
      ...(this.node === undefined ? {} : { node: this.node }),
    });
    try {
      return seqsOf(columns, (await this.db.prepared(call)).rows);
    } catch (error) {
      this.known.push(...forget);
      this.stamps.forget();
      throw error;
    }
  }

  /** EventStore: a session's rows as [seq, kind, text, at]. */
  async readRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]> {
    return this.db.arrays(
      `SELECT seq, kind, payload::text AS payload, at FROM acphub_events
       WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [sessionId, afterSeq, uptoSeq],
    );
  }

  /** EventStore: a turn's `update` rows [seq, text] as stored (a merged row with its chunk list,
   * which its compaction needs to merge it again), for its compaction. */
  async readUpdateRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]> {
    return this.db.arrays(
      `SELECT seq, payload::text AS payload FROM acphub_events
       WHERE session_id = $1 AND seq > $2 AND seq <= $3 AND kind = 'update' ORDER BY seq`,
      [sessionId, afterSeq, uptoSeq],
    );
  }

  /** EventStore: a replay's rows, the plain updates joined by the server and made into frames
   *  here (./pg-replay.ts). */
  readReplayRows(sessionId: string, head: string): Promise<unknown[][]> {
    return pgReplayRows(this.db, sessionId, head);
  }

  /** EventStore: one page of a session's rows, from either end. */
  async readPageRows(
    sessionId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
    newest: boolean,
  ): Promise<unknown[][]> {
    return this.db.arrays(
      `SELECT seq, kind, payload::text AS payload, at FROM acphub_events
       WHERE session_id = $1 AND seq > $2 AND seq < $3
       ORDER BY seq ${newest ? "DESC" : "ASC"} LIMIT $4`,
      [sessionId, afterSeq, beforeSeq, limit],
    );
  }

  /** EventStore: merged runs written in one statement, the counters changed by them. */
  applyRuns(sessionId: string, runs: MergedRun[]): Promise<void> {
    return compactPg(
      (text, args) => this.db.query(text, args),
      sessionId,
      runs,
    );
  }

  /** Core: writes the deferred `updated_at` times, stops listening and ends the pool. */
  protected async disconnect(): Promise<void> {
    await this.stamps
      .flush()
      .catch((error: unknown) =>
        this.logger.warn(
          { err: String(error) },
          "ledger: writing sessions' updated_at on close failed",
        ),
      );
    await this.listener.close();
    await this.db.end();
  }
}
