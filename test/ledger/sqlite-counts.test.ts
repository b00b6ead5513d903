// A SQLite session's counters (schema 9): the row holds a checkpoint, written with its
// `updated_at`, and every reader counts the events after it. A schema-8 ledger keeps its
// counters, a log written past the checkpoint (a kill -9, another process) is counted, and a
// compaction's recount is not undone by an older snapshot written later.
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  migrationSql,
  SCHEMA_VERSION,
} from "../../src/ledger/sqlite/migrations.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";
import { logged } from "./sqlite-log.js";

const T0 = 1_800_000_000_000;
const file = () => join(tempDir("acphub-counts-"), "ledger.db");
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});
const SESSION_ROW = `INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request,
  next_seq, event_count, bytes) VALUES (?, 'a', '/w', 1, 1, 'active', '{}', ?, ?, ?)`;
const JOURNAL_ROW = `INSERT INTO event_journal (session_id, seq, kind, payload, bytes, at)
  VALUES (?, ?, 'update', ?, ?, 1)`;

// The row's own counters and the events it holds, on a connection of its own.
function stored(path: string, id: string) {
  const db = new Database(path, { readonly: true });
  const row = db
    .prepare("SELECT next_seq, event_count, bytes FROM sessions WHERE id = ?")
    .get(id) as { next_seq: number; event_count: number; bytes: number };
  db.close();
  const { eventCount, bytes } = logged(path, id);
  return { row, events: eventCount, bytes };
}

afterEach(() => vi.useRealTimers());

describe("SQLite ledger: a session's counters (schema 9)", () => {
  it("opens a schema-8 ledger with the same counters, on both ends of the log", async () => {
    const path = file();
    const db = new Database(path);
    for (let v = 1; v <= 8; v++) db.exec(migrationSql(v));
    db.pragma("user_version = 8");
    db.prepare(SESSION_ROW).run("s1", 6, 5, 50);
    const old = db.prepare(
      "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES ('s1', ?, 'update', ?, 10, 1)",
    );
    for (let seq = 1; seq <= 3; seq++)
      old.run(seq, JSON.stringify(chunk(`old ${seq}`)));
    const hot = db.prepare(JOURNAL_ROW);
    for (let seq = 4; seq <= 5; seq++)
      hot.run("s1", seq, JSON.stringify(chunk(`hot ${seq}`)), 10);
    db.close();
    const ledger = new SqliteLedger(path);
    expect(await ledger.getSession("s1")).toMatchObject({
      eventCount: 5,
      bytes: 50,
    });
    const [listed] = (await ledger.listSessions({})).sessions;
    expect(listed).toMatchObject({ id: "s1", eventCount: 5, bytes: 50 });
    expect(await ledger.append("s1", "update", chunk("new"))).toBe(6);
    expect(await ledger.getSession("s1")).toMatchObject({ eventCount: 6 });
    await ledger.close();
    const after = new Database(path, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    after.close();
  });

  it("counts what was written past the checkpoint (a kill -9, another process), for readers, seqs and caps", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s1"));
    await ledger.append("s1", "update", { i: 1 });
    await ledger.close();
    // Rows a writer committed without moving the checkpoint, as a kill -9 leaves them.
    const db = new Database(path);
    const hot = db.prepare(JOURNAL_ROW);
    for (let seq = 2; seq <= 4; seq++) hot.run("s1", seq, `{"i":${seq}}`, 7);
    db.close();
    expect(stored(path, "s1").row.next_seq).toBe(2);
    const again = new SqliteLedger(path, {
      caps: { maxEventsPerSession: 4 },
    });
    const first = stored(path, "s1").bytes;
    expect(await again.getSession("s1")).toMatchObject({
      eventCount: 4,
      bytes: first,
      incomplete: false,
    });
    expect((await again.listSessions({})).sessions[0]).toMatchObject({
      eventCount: 4,
    });
    expect(await again.append("s1", "update", { i: 5 })).toBe(5);
    const events = await again.events("s1");
    expect(events.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    expect(await again.getSession("s1")).toMatchObject({
      eventCount: 4,
      incomplete: true,
    });
    await again.close();
    const { row, events: n, bytes } = stored(path, "s1");
    expect(row).toEqual({ next_seq: 6, event_count: n, bytes });
  });

  it("keeps a compaction's recount when an older snapshot of the counters is written after it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s1", T0 - 60_000));
    const before = await ledger.append("s1", "update", chunk("earlier "));
    // Within STAMP_MS: the row waits; the snapshot of the last batch is deferred.
    vi.setSystemTime(T0 + 10);
    const appends = [];
    for (let i = 0; i < 20; i++)
      appends.push(ledger.append("s1", "update", chunk(`${i}`)));
    await Promise.all(appends);
    expect(stored(path, "s1").row.event_count).toBeLessThan(21);
    await ledger.compact("s1", before);
    const compacted = await ledger.getSession("s1");
    expect(compacted!.eventCount).toBeLessThan(21);
    await ledger.close();
    const { row, events, bytes } = stored(path, "s1");
    expect(row).toEqual({ next_seq: 22, event_count: events, bytes });
    expect(events).toBe(compacted!.eventCount);
  });
});
