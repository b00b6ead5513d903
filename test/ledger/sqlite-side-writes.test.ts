// Small writes held to the end of the tick and written together (a turn's usage row, an audit
// line: src/ledger/sqlite/side-writes.ts): each caller told once its own write committed, a
// failing one alone refused, and what is held written when the ledger closes.
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SideWrites } from "../../src/ledger/sqlite/side-writes.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";

const file = () => join(tempDir("acphub-side-"), "ledger.db");

it("holds the writes of a tick to its end, commits them together, and refuses a failing one alone", async () => {
  const path = file();
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
  const other = new Database(path, { readonly: true });
  const keys = () => other.prepare("SELECT k FROM t ORDER BY k").pluck().all();
  const side = new SideWrites(db);
  const insert = db.prepare("INSERT INTO t (k) VALUES (?)");
  const writes = ["a", "b", "a", "c"].map((k) =>
    side.add(insert, [k]).then(
      () => "stored",
      (error: unknown) => String((error as { code?: string }).code),
    ),
  );
  // Nothing is written before the tick ends.
  expect(keys()).toEqual([]);
  expect(await Promise.all(writes)).toEqual([
    "stored",
    "stored",
    "SQLITE_CONSTRAINT_PRIMARYKEY",
    "stored",
  ]);
  expect(keys()).toEqual(["a", "b", "c"]);
  other.close();
  db.close();
});

it("writes a turn's usage row and an audit line at the end of the tick, and what is held when it closes", async () => {
  const path = file();
  const ledger = new SqliteLedger(path);
  const usage = {
    turn: "t1",
    sessionId: "s1",
    agent: "mock",
    user: "alice",
    at: Date.now(),
    inputTokens: 2,
    outputTokens: 3,
    totalTokens: 5,
    tokens: 5,
    cost: 0,
    currency: null,
  };
  const other = new Database(path, { readonly: true });
  const count = (table: string) =>
    other.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
  const recorded = ledger.recordUsage(usage);
  const audited = ledger.users.audit({
    at: Date.now(),
    user: "alice",
    action: "prompt",
    sessionId: "s1",
    detail: null,
  });
  expect([count("usage"), count("audit")]).toEqual([0, 0]);
  await Promise.all([recorded, audited]);
  expect([count("usage"), count("audit")]).toEqual([1, 1]);
  // Held when the ledger closes: written before the file is.
  void ledger.users.audit({
    ...{ at: Date.now(), user: "bob", action: "prompt" },
    ...{ sessionId: null, detail: null },
  });
  await ledger.close();
  expect(count("audit")).toBe(2);
  other.close();
});
