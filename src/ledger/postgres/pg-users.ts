// The user store (issue 22) on the PostgreSQL ledger's pool (queries retried like the ledger's).
import { SqlUserStore, type SqlRunner } from "../user-store.js";
import type { PgConnection } from "./pg-connection.js";
import { SqlSecretStore } from "../secret-store.js";

// The users' secrets (issue 36), sealed, through the same connection.
export function pgSecretStore(db: PgConnection): SqlSecretStore {
  return new SqlSecretStore(pgRunner(db), "acphub_");
}

export function pgUserStore(db: PgConnection): SqlUserStore {
  return new SqlUserStore(pgRunner(db), "acphub_");
}

// Runs the stores' statements through the ledger's connection.
function pgRunner(db: PgConnection): SqlRunner {
  const runner: SqlRunner = {
    all: async (sql, args = []) => (await db.query(sql, args)).rows,
    run: async (sql, args = []) => (await db.query(sql, args)).rowCount ?? 0,
    isDuplicate: (error) =>
      (error as { cause?: { code?: unknown } }).cause?.code === "23505",
  };
  return runner;
}
