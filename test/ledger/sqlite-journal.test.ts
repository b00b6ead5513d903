// The SQLite ledger's hot journal (schema 5, issue 24): appends land in `event_journal` and move
// into `events` in bulk; every read takes both, a migrated ledger keeps its old events, and a
// second connection writing the same session is noticed (PRAGMA data_version).
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MOVE_ROWS } from "../../src/ledger/sqlite/journal.js";
import { FOLD_ROWS } from "../../src/ledger/sqlite/spool.js";
import {
  migrationSql,
  SCHEMA_VERSION,
} from "../../src/ledger/sqlite/migrations.js";
import { FRAMES } from "../../src/ledger/sqlite/replay-rows.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { frameHead, replayChunks } from "../../src/engine/wire-updates.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";

const file = () => join(tempDir("acphub-journal-"), "ledger.db");
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});

// Each its own message: the spool merges no two of them.
const own = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    messageId: text,
    content: { type: "text", text },
  },
});

// What the ledger spooled folded into the log (any read does it), for a look at the tables.
const settle = (ledger: SqliteLedger) => ledger.read("none");

// How many of a session's rows each table holds, read on a connection of its own.
function where(path: string, sessionId: string) {
  const db = new Database(path, { readonly: true });
  const count = (table: string) =>
    db
      .prepare(`SELECT COUNT(*) FROM ${table} WHERE session_id = ?`)
      .pluck()
      .get(sessionId);
  const out = {
    events: Number(count("events")),
    journal: Number(count("event_journal")),
  };
  db.close();
  return out;
}

// A ledger of schema 4 (before the journal) holding session s1 with events 1..3.
function schema4(path: string): void {
  const db = new Database(path);
  for (let v = 1; v <= 4; v++) db.exec(migrationSql(v));
  db.pragma("user_version = 4");
  db.prepare(
    "INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request, next_seq, event_count, bytes) VALUES ('s1', 'a', '/w', 1, 1, 'active', '{}', 4, 3, 0)",
  ).run();
  const old = db.prepare(
    "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES ('s1', ?, 'update', ?, 0, 1)",
  );
  for (let seq = 1; seq <= 3; seq++)
    old.run(seq, JSON.stringify(chunk(`old ${seq}`)));
  db.close();
}

describe("SQLite ledger: the hot journal", () => {
  it("migrates a schema-4 ledger and reads a session whose events are on both sides of the journal", async () => {
    const path = file();
    schema4(path);
    const ledger = new SqliteLedger(path);
    for (let i = 4; i <= 6; i++)
      expect(await ledger.append("s1", "update", own(`new ${i}`))).toBe(i);
    await settle(ledger);
    expect(where(path, "s1")).toEqual({ events: 3, journal: 3 });
    const seqs = (events: { seq: number }[]) => events.map((e) => e.seq);
    expect(seqs(await ledger.read("s1"))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seqs(await ledger.read("s1", { afterSeq: 2, uptoSeq: 5 }))).toEqual([
      3, 4, 5,
    ]);
    const newest = await ledger.readPage("s1", { from: "newest", limit: 4 });
    expect(seqs(newest)).toEqual([3, 4, 5, 6]);
    const older = await ledger.readPage("s1", {
      from: "newest",
      limit: 2,
      beforeSeq: 4,
    });
    expect(seqs(older)).toEqual([2, 3]);
    const oldest = await ledger.readPage("s1", {
      from: "oldest",
      limit: 2,
      afterSeq: 2,
    });
    expect(seqs(oldest)).toEqual([3, 4]);
    expect((await ledger.events("s1")).at(-1)?.payload).toEqual(own("new 6"));
    expect(await ledger.getSession("s1")).toMatchObject({ eventCount: 6 });
    await ledger.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    expect(where(path, "s1")).toEqual({ events: 6, journal: 0 });
  });

  it("moves a turn's rows into events when it is compacted, the other sessions' staying in the journal", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a"));
    await ledger.createSession(session("b"));
    const prompt = await ledger.append("a", "prompt", { prompt: [] });
    await Promise.all(
      ["one ", "two ", "three"].map((t) =>
        ledger.append("a", "update", chunk(t)),
      ),
    );
    await ledger.append("b", "update", chunk("b's"));
    const end = await ledger.append("a", "turn_end", {
      stopReason: "end_turn",
    });
    await ledger.compact("a", prompt, end);
    expect(where(path, "a")).toEqual({ events: 3, journal: 0 });
    expect(where(path, "b")).toEqual({ events: 0, journal: 1 });
    const events = await ledger.events("a");
    expect(events.map((e) => e.kind)).toEqual(["prompt", "update", "turn_end"]);
    expect(events[1]?.payload).toEqual(chunk("one two three"));
    expect(await ledger.getSession("a")).toMatchObject({ eventCount: 3 });
    expect(await ledger.append("a", "update", chunk("next"))).toBe(end + 1);
    await ledger.close();
  });

  it("stores a long turn's chunks merged as the spool folds them: no row per chunk reaches the log, one per 1,000 after the turn", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a"));
    // Every row inserted into the log's two tables from here on is noted.
    const spy = new Database(path);
    spy.exec(`CREATE TABLE inserted (seq INTEGER);
      CREATE TRIGGER note AFTER INSERT ON events BEGIN INSERT INTO inserted VALUES (new.seq); END;
      CREATE TRIGGER noteJournal AFTER INSERT ON event_journal BEGIN INSERT INTO inserted VALUES (new.seq); END;`);
    const prompt = await ledger.append("a", "prompt", { prompt: [] });
    const count = FOLD_ROWS + 100; // folded once on the way, the rest at the turn's end
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        ledger.append("a", "update", chunk(`${i % 10}`)),
      ),
    );
    const end = await ledger.append("a", "turn_end", {
      stopReason: "end_turn",
    });
    await ledger.compact("a", prompt, end);
    const runs = Math.ceil(count / 1000);
    const inserted = spy.prepare("SELECT COUNT(*) FROM inserted").pluck();
    // The journal's rows (merged per fold) and their move into `events` at the turn's end.
    expect(Number(inserted.get())).toBeLessThanOrEqual(2 * (runs + 4));
    spy.close();
    expect(where(path, "a")).toEqual({ events: runs + 2, journal: 0 });
    const events = await ledger.events("a");
    const text = events
      .filter((e) => e.kind === "update")
      .map(
        (e) =>
          (e.payload["update"] as { content: { text: string } }).content.text,
      )
      .join("");
    expect(text).toBe(
      Array.from({ length: count }, (_, i) => `${i % 10}`).join(""),
    );
    expect(await ledger.getSession("a")).toMatchObject({
      eventCount: runs + 2,
    });
    await ledger.close();
  });

  it("forks a session whose events are in the journal, and drops them with a deleted session", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a"));
    for (let i = 0; i < 4; i++) await ledger.append("a", "update", own(`${i}`));
    await ledger.copySession("a", session("f"), 3);
    expect((await ledger.read("f")).map((e) => e.text)).toEqual(
      (await ledger.read("a", { uptoSeq: 3 })).map((e) => e.text),
    );
    expect(await ledger.getSession("f")).toMatchObject({ eventCount: 3 });
    expect(await ledger.append("f", "update", chunk("fork"))).toBe(4);
    expect(await ledger.append("a", "update", chunk("parent"))).toBe(5);
    expect(await ledger.deleteSession("a")).toBe(true);
    expect(where(path, "a")).toEqual({ events: 0, journal: 0 });
    expect((await ledger.read("f")).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    await ledger.close();
  });

  it("leaves the journal alone when a connection that appended nothing closes (a reading command)", async () => {
    const path = file();
    const writer = new SqliteLedger(path);
    await writer.createSession(session("s"));
    await writer.append("s", "update", chunk("1"));
    const reader = new SqliteLedger(path);
    expect((await reader.read("s")).map((e) => e.seq)).toEqual([1]);
    await reader.close();
    expect(where(path, "s")).toEqual({ events: 0, journal: 1 });
    await writer.close();
    expect(where(path, "s")).toEqual({ events: 1, journal: 0 });
  });

  it("gives the next seq after another connection's appends to the same session", async () => {
    const path = file();
    const one = new SqliteLedger(path);
    await one.createSession(session("s"));
    expect(await one.append("s", "update", own("1"))).toBe(1);
    expect(await one.append("s", "update", own("2"))).toBe(2);
    const two = new SqliteLedger(path);
    expect(await two.append("s", "update", own("3"))).toBe(3);
    expect(await one.append("s", "update", own("4"))).toBe(4);
    expect(await two.append("s", "update", own("5"))).toBe(5);
    expect((await one.read("s")).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await one.getSession("s")).toMatchObject({ eventCount: 5 });
    await two.close();
    await one.close();
  });

  it(`moves the oldest rows into events in steps once the journal holds ${MOVE_ROWS} rows, losing and reordering none`, async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    const ids = ["a", "b", "c"];
    for (const id of ids) await ledger.createSession(session(id));
    const appends = [];
    for (let i = 0; i < MOVE_ROWS + 30; i++)
      appends.push(ledger.append(ids[i % 3]!, "update", { i }));
    await Promise.all(appends);
    for (let turn = 0; turn < 10; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    const counts = ids.map((id) => where(path, id));
    const journal = counts.reduce((n, w) => n + w.journal, 0);
    expect(journal).toBeLessThanOrEqual(MOVE_ROWS / 2);
    expect(journal).toBeGreaterThan(0);
    expect(counts.reduce((n, w) => n + w.events, 0)).toBe(
      MOVE_ROWS + 30 - journal,
    );
    for (const [k, id] of ids.entries()) {
      const events = await ledger.events(id);
      const expected = [...Array(MOVE_ROWS + 30).keys()].filter(
        (i) => i % 3 === k,
      );
      expect(events.map((e) => e.payload["i"])).toEqual(expected);
      expect(events.map((e) => e.seq)).toEqual(expected.map((_, j) => j + 1));
    }
    await ledger.close();
  });
  it("finds a session's journal rows by an index: its read, move and drop scan no other session's rows (schema 8)", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a"));
    await ledger.append("a", "update", chunk("x"));
    const db = new Database(path, { readonly: true });
    const plan = (sql: string, ...args: unknown[]) =>
      (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as {
          detail: string;
        }[]
      )
        .map((r) => r.detail)
        .join(" / ");
    const statements = [
      "SELECT seq, kind, payload, at FROM event_journal WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
      "SELECT seq FROM event_journal WHERE session_id = ? ORDER BY seq",
      "DELETE FROM event_journal WHERE session_id = ?",
    ];
    for (const sql of statements) {
      const args = sql.includes("seq >") ? ["a", 0, 9] : ["a"];
      expect(plan(sql, ...args)).toMatch(
        /SEARCH event_journal USING (COVERING )?INDEX event_journal_session/,
      );
      expect(plan(sql, ...args)).not.toContain("TEMP B-TREE");
    }
    db.close();
    await ledger.close();
  });

  it("replays a session whose updates lie on both sides of the journal in seq order, joined without a sort", async () => {
    const path = file();
    const first = new SqliteLedger(path);
    await first.createSession(session("a"));
    for (let i = 0; i < 40; i++)
      await first.append("a", "update", own(`old ${i} `));
    await first.close(); // its rows move into events
    const ledger = new SqliteLedger(path);
    await ledger.append("a", "notice", { severity: "info", title: "back" });
    for (let i = 0; i < 40; i++)
      await ledger.append("a", "update", own(`new ${i} `));
    await settle(ledger);
    expect(where(path, "a")).toEqual({ events: 40, journal: 41 });
    const parts = await ledger.readReplay("a", frameHead("a"));
    expect(parts.length).toBe(3);
    expect(replayChunks("a", parts).join("")).toBe(
      replayChunks("a", await ledger.read("a")).join(""),
    );
    const db = new Database(path, { readonly: true });
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${FRAMES}`)
      .all({ id: "a", head: "", after: 0, before: 99 }) as { detail: string }[];
    expect(plan.map((r) => r.detail).join(" / ")).toContain(
      "MERGE (UNION ALL)",
    );
    expect(plan.map((r) => r.detail).join(" / ")).not.toContain("TEMP B-TREE");
    db.close();
    await ledger.close();
  });
});
