// The user store (issue 22) on the SQLite ledger's connection.
import type Database from "better-sqlite3";
import { SqlUserStore, type SqlRunner } from "../user-store.js";

// Runs the store's `$n` statements (each placeholder once, in order) as SQLite `?` ones.
export function sqliteUserStore(db: Database.Database): SqlUserStore {
  const cache = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql.replace(/\$\d+/g, "?"))));
    return s;
  };
  const runner: SqlRunner = {
    all: (sql, args = []) =>
      Promise.resolve(prepared(sql).all(...args) as Record<string, unknown>[]),
    run: (sql, args = []) =>
      Promise.resolve(prepared(sql).run(...args).changes),
    isDuplicate: (error) =>
      /^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/.test(
        String((error as { code?: unknown }).code),
      ),
  };
  return new SqlUserStore(runner, "");
}
