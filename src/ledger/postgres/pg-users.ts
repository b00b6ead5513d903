// The user store (issue 22) on the PostgreSQL ledger's pool (queries retried like the ledger's).
import { SqlUserStore, type SqlRunner } from "../user-store.js";
import type { PgConnection } from "./pg-connection.js";

// Runs the store's statements through the ledger's connection.
export function pgUserStore(db: PgConnection): SqlUserStore {
  const runner: SqlRunner = {
    all: async (sql, args = []) => (await db.query(sql, args)).rows,
    run: async (sql, args = []) => (await db.query(sql, args)).rowCount ?? 0,
    isDuplicate: (error) =>
      (error as { cause?: { code?: unknown } }).cause?.code === "23505",
  };
  return new SqlUserStore(runner, "acphub_");
}
