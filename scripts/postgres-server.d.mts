/** A throwaway PostgreSQL server (see postgres-server.mjs). */
export interface PgServer {
  port: number;
  /** A fresh empty database, as a postgres:// URL. */
  database(): Promise<string>;
  url(database: string): string;
  /** pg_ctl stop (fast) then start again on the same port: a Postgres restart. */
  restart(pauseMs?: number): Promise<void>;
  /** Stops the server without removing its data; startAgain() brings it back. */
  stopOnly(): void;
  startAgain(): void;
  /** Stops it and removes its folder. */
  stop(): void;
}

/** `fsync: false` for tests that measure nothing (faster on a busy machine). */
export function startPostgres(options?: { fsync?: boolean }): Promise<PgServer>;
