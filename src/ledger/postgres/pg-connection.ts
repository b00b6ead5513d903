// The PostgreSQL ledger's connections: a small pool, queries and transactions retried with a
// bounded backoff while the server is away, and errors that name the URL (password masked).
import pg from "pg";
import type { Logger } from "../../shared/logger.js";
import { DEFAULT_PG_RETRY_MS } from "../caps.js";
import { isConnectionError, maskUrl, pgError, withRetry } from "./pg-retry.js";
import { migratePg } from "./pg-schema.js";

/**
 * The server ends a session idle inside a transaction this long (ms): a process cut off
 * mid-batch (a partition: no FIN, no RST) would otherwise hold its sessions' row locks until TCP
 * keepalive notices, hours, and a cluster's takeover of those sessions would wait as long. Our
 * transactions never wait between their statements.
 */
export const IDLE_IN_TRANSACTION_MS = 5000;

/**
 * Connections opened with the ledger and kept while idle: a session/load reads on one while
 * another writes, and a fresh connection costs a server process and its first queries the
 * loading of the catalog (~100 ms measured under load, inside the replay's time).
 */
const WARM_CONNECTIONS = 2;

/**
 * The pool's bound: the ledger's reads and batches, and a cluster node's heartbeats and claims
 * (a claim may wait for a session's row lock), which had a pool of 2 of their own before.
 */
const MAX_CONNECTIONS = 6;

/** A first read of each table, so that a warm connection has their catalog entries cached. */
const WARM_UP =
  "SELECT (SELECT 1 FROM acphub_sessions WHERE id = '') AS s, (SELECT 1 FROM acphub_events WHERE session_id = '' AND seq > 0 LIMIT 1) AS e";

export interface PgConnectionOptions {
  /** How long queries retry while PostgreSQL is unreachable before failing (ms). */
  retryMs?: number;
  /** How long to wait for a connection (ms). */
  connectTimeoutMs?: number;
}

export class PgConnection {
  /** The URL with its password masked, as errors and logs name it. */
  readonly where: string;
  private readonly pool: pg.Pool;
  private readonly retryMs: number;

  constructor(
    readonly url: string,
    options: PgConnectionOptions,
    logger: Logger,
  ) {
    this.where = maskUrl(url);
    this.retryMs = options.retryMs ?? DEFAULT_PG_RETRY_MS;
    this.pool = new pg.Pool({
      connectionString: url,
      max: MAX_CONNECTIONS,
      min: WARM_CONNECTIONS,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    });
    // A connection lost while checked out also errors on its client: the query fails and is
    // retried, so the event itself only needs logging.
    this.pool.on("connect", (client) =>
      client.on("error", (error) =>
        logger.warn({ err: error.message }, "ledger: connection lost"),
      ),
    );
    this.pool.on("error", (error) =>
      logger.warn({ err: error.message }, "ledger: idle connection lost"),
    );
  }

  /** Connects, migrates and warms the kept connections; failing is one HubError naming the URL. */
  async open(): Promise<void> {
    try {
      const tries = await Promise.allSettled(
        Array.from({ length: WARM_CONNECTIONS }, () => this.pool.connect()),
      );
      const clients = tries.flatMap((t) =>
        t.status === "fulfilled" ? [t.value] : [],
      );
      try {
        for (const t of tries) if (t.status === "rejected") throw t.reason;
        await migratePg(clients[0]!, this.where);
        await Promise.all(clients.map((client) => client.query(WARM_UP)));
      } finally {
        for (const client of clients) client.release();
      }
    } catch (error) {
      await this.pool.end().catch(() => undefined);
      throw pgError(this.where, error);
    }
  }

  // One statement, retried while the server is away (for `retryMs`, else the ledger's budget).
  query<R extends pg.QueryResultRow>(
    sql: string,
    args: unknown[] = [],
    retryMs = this.retryMs,
  ) {
    return withRetry(this.where, retryMs, () => this.pool.query<R>(sql, args));
  }

  // A named prepared statement (parsed and planned once per connection), retried as a whole.
  prepared<R extends pg.QueryResultRow>(query: {
    name: string;
    text: string;
    values: unknown[];
  }) {
    return withRetry(this.where, this.retryMs, () => this.pool.query<R>(query));
  }

  // Rows as arrays of column values, in select order: no object built per row (long replays).
  arrays(sql: string, args: unknown[] = []): Promise<unknown[][]> {
    return withRetry(this.where, this.retryMs, async () => {
      const result = await this.pool.query<unknown[]>({
        text: sql,
        values: args,
        rowMode: "array",
      });
      return result.rows;
    });
  }

  // Runs `work` in one transaction, retried as a whole after a lost connection.
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return withRetry(this.where, this.retryMs, async () => {
      const client = await this.pool.connect();
      let lost: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // A connection the server dropped is discarded, not handed to the next batch.
        if (isConnectionError(error)) lost = error as Error;
        else await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release(lost);
      }
    });
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
