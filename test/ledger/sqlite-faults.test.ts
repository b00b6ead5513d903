// The SQLite ledger's own faults: migrations from an older acphub, a ledger from a newer one,
// a full disk, a lock held by another process, a folder that cannot be created.
import Database from "better-sqlite3";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  migrationSql,
  SCHEMA_VERSION,
} from "../../src/ledger/sqlite/migrations.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";

const file = () => join(tempDir("acphub-ledger-"), "ledger.db");

describe("SQLite ledger faults", () => {
  it("migrates a ledger written by an older acphub on open, keeping its events", async () => {
    const where = file();
    const db = new Database(where);
    db.exec(migrationSql(1));
    db.pragma("user_version = 1");
    db.prepare(
      "INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request, next_seq, event_count, bytes) VALUES ('s1', 'a', '/w', 1, 1, 'active', '{}', 3, 2, 10)",
    ).run();
    const old = db.prepare(
      "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES ('s1', ?, 'update', ?, 5, 1)",
    );
    old.run(
      1,
      JSON.stringify({ update: { sessionUpdate: "plan" }, meta: { m: 1 } }),
    );
    old.run(2, JSON.stringify({ update: { sessionUpdate: "plan" } }));
    db.close();
    const ledger = new SqliteLedger(where);
    expect(await ledger.getSession("s1")).toMatchObject({
      settings: null,
      forkedFrom: null,
    });
    expect((await ledger.events("s1")).map((e) => e.payload)).toEqual([
      { update: { sessionUpdate: "plan" }, _meta: { m: 1 } },
      { update: { sessionUpdate: "plan" } },
    ]);
    expect(await ledger.append("s1", "update", {})).toBe(3);
    await ledger.close();
    const after = new Database(where);
    expect(after.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    after.close();
  });

  it("migrates a ledger of schema 2 (issue 14's settings and forked_from, updates with meta), keeping both", async () => {
    const where = file();
    const db = new Database(where);
    db.exec(migrationSql(1));
    db.exec(migrationSql(2));
    db.pragma("user_version = 2");
    db.prepare(
      `INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request, next_seq, event_count, bytes, settings, forked_from)
       VALUES ('f', 'a', '/w', 1, 1, 'active', '{}', 2, 1, 5, '{"modes":{"currentModeId":"ask"}}', 'p')`,
    ).run();
    db.prepare(
      "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES ('f', 1, 'update', ?, 5, 1)",
    ).run(
      JSON.stringify({ update: { sessionUpdate: "plan" }, meta: { m: 2 } }),
    );
    db.close();
    const ledger = new SqliteLedger(where);
    expect(await ledger.getSession("f")).toMatchObject({
      settings: { modes: { currentModeId: "ask" } },
      forkedFrom: "p",
    });
    expect((await ledger.read("f")).map((e) => e.text)).toEqual([
      '{"update":{"sessionUpdate":"plan"},"_meta":{"m":2}}',
    ]);
    await ledger.close();
  });

  it("refuses a ledger written by a newer acphub, saying so", () => {
    const where = file();
    const db = new Database(where);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new SqliteLedger(where)).toThrow(
      /ledger .*ledger\.db was written by a newer acphub/,
    );
  });

  it("fails an append on a full disk with the file named, and keeps what was committed", async () => {
    const where = file();
    const ledger = new SqliteLedger(where);
    await ledger.createSession(session("s1"));
    await ledger.append("s1", "update", { i: 1 });
    (ledger as unknown as { db: Database.Database }).db.pragma(
      "max_page_count = 8",
    );
    const failed = ledger.append("s1", "update", {
      big: "x".repeat(64 * 1024),
    });
    await expect(failed).rejects.toMatchObject({
      code: "LEDGER_UNAVAILABLE",
      message: expect.stringContaining(`ledger ${where}: the disk is full`),
    });
    (ledger as unknown as { db: Database.Database }).db.pragma(
      "max_page_count = 1073741823",
    );
    expect((await ledger.events("s1")).map((e) => e.payload)).toEqual([
      { i: 1 },
    ]);
    expect(await ledger.append("s1", "update", { i: 2 })).toBe(2);
    await ledger.close();
  });

  it("fails an append while another process holds the lock, naming the file", async () => {
    const where = file();
    const ledger = new SqliteLedger(where, { busyTimeoutMs: 50 });
    await ledger.createSession(session("s1"));
    const other = new Database(where);
    other.exec("BEGIN EXCLUSIVE");
    await expect(ledger.append("s1", "update", { i: 1 })).rejects.toThrow(
      /ledger .*ledger\.db: it is locked by another process/,
    );
    other.exec("ROLLBACK");
    other.close();
    expect(await ledger.append("s1", "update", { i: 2 })).toBe(1);
    await ledger.close();
  });

  it("names the file when its folder cannot be created", () => {
    const blocker = join(tempDir("acphub-ledger-"), "not-a-folder");
    writeFileSync(blocker, "");
    expect(() => new SqliteLedger(join(blocker, "ledger.db"))).toThrow(
      /ledger .*not-a-folder\/ledger\.db: its folder cannot be created/,
    );
  });
});
