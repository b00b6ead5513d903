// The user store (issue 22) on the SQLite ledger's connection.
import type Database from "better-sqlite3";
import type { SideWrites } from "./side-writes.js";
import { SqlUserStore, type SqlRunner } from "../user-store.js";
import { SqlSecretStore } from "../secret-store.js";

// The users' secrets (issue 36), sealed, on the same connection.
export function sqliteSecretStore(db: Database.Database): SqlSecretStore {
  return new SqlSecretStore(sqliteRunner(db), "");
}

export function sqliteUserStore(
  db: Database.Database,
  side?: SideWrites,
): SqlUserStore {
  return new SqlUserStore(sqliteRunner(db, side), "");
}

// Runs the stores' `$n` statements (each placeholder once, in order) as SQLite `?` ones.
function sqliteRunner(db: Database.Database, side?: SideWrites): SqlRunner {
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
    ...(side && { later: (sql, args) => side.add(prepared(sql), args) }),
    isDuplicate: (error) =>
      /^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/.test(
        String((error as { code?: unknown }).code),
      ),
  };
  return runner;
}
