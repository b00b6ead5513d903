import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/ledger/migrations.js";
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";

const caps = {
  maxSessions: 3,
  maxEventsPerSession: 5,
  maxBytesPerSession: 1000,
};
const session = (id: string, updatedAt: number, cwd = "/w") => ({
  id,
  agent: "a",
  cwd,
  title: null,
  createdAt: updatedAt,
  updatedAt,
  state: "active" as const,
  agentSessionId: `ag-${id}`,
  request: { mcpServers: [] },
});

describe("SqliteLedger", () => {
  it("appends with increasing sequence numbers and reads events back in order", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    ledger.createSession(session("s1", 1));
    expect([
      ledger.append("s1", "prompt", { prompt: [] }),
      ledger.append("s1", "update", { update: { x: 1 } }),
    ]).toEqual([1, 2]);
    expect(ledger.events("s1").map((e) => [e.seq, e.kind, e.payload])).toEqual([
      [1, "prompt", { prompt: [] }],
      [2, "update", { update: { x: 1 } }],
    ]);
    expect(ledger.getSession("s1")).toMatchObject({
      eventCount: 2,
      incomplete: false,
      agentSessionId: "ag-s1",
      request: { mcpServers: [] },
    });
    expect(() => ledger.append("nope", "update", {})).toThrow(
      /no session nope/,
    );
  });

  it("trims the oldest events past the event and byte caps and marks the session incomplete", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    ledger.createSession(session("s1", 1));
    for (let i = 1; i <= 8; i++) ledger.append("s1", "update", { i });
    expect(ledger.events("s1").map((e) => e.payload["i"])).toEqual([
      4, 5, 6, 7, 8,
    ]);
    expect(ledger.getSession("s1")).toMatchObject({
      eventCount: 5,
      incomplete: true,
    });
    ledger.append("s1", "update", { big: "x".repeat(900) });
    const after = ledger.getSession("s1")!;
    expect(after.bytes).toBeLessThanOrEqual(1000);
    expect(ledger.events("s1").at(-1)?.payload["big"]).toHaveLength(900);
  });

  it("evicts the least recently updated sessions past maxSessions", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    for (const [id, t] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
      ["d", 4],
    ] as const)
      ledger.createSession(session(id, t));
    expect(ledger.getSession("a")).toBeUndefined();
    expect(ledger.listSessions({}).sessions.map((s) => s.id)).toEqual([
      "d",
      "c",
      "b",
    ]);
  });

  it("paginates with a cursor and filters by cwd; a bad cursor is an error", () => {
    const ledger = new SqliteLedger(":memory:", { ...caps, maxSessions: 100 });
    for (let i = 0; i < 7; i++)
      ledger.createSession(session(`s${i}`, 100 + i, i % 2 ? "/odd" : "/even"));
    const first = ledger.listSessions({ limit: 3 });
    const second = ledger.listSessions({ limit: 3, cursor: first.nextCursor });
    const third = ledger.listSessions({ limit: 3, cursor: second.nextCursor });
    expect(
      [...first.sessions, ...second.sessions, ...third.sessions].map(
        (s) => s.id,
      ),
    ).toEqual(["s6", "s5", "s4", "s3", "s2", "s1", "s0"]);
    expect(third.nextCursor).toBeNull();
    expect(
      ledger.listSessions({ cwd: "/odd" }).sessions.map((s) => s.id),
    ).toEqual(["s5", "s3", "s1"]);
    expect(() => ledger.listSessions({ cursor: "garbage" })).toThrow(
      /invalid cursor/,
    );
  });

  it("survives reopening, migrates by user_version, and skips damaged rows", () => {
    const file = join(tempDir(), "ledger.db");
    const ledger = new SqliteLedger(file, caps);
    ledger.createSession(session("s1", 1));
    ledger.append("s1", "update", { ok: true });
    ledger.append("s1", "update", { ok: "too" });
    ledger.close();
    const raw = new Database(file);
    expect(raw.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    raw.prepare("UPDATE events SET payload = 'not json' WHERE seq = 1").run();
    raw.close();
    const reopened = new SqliteLedger(file, caps);
    expect(reopened.events("s1").map((e) => e.payload)).toEqual([
      { ok: "too" },
    ]);
    reopened.close();
  });

  it("refuses a database from a newer acphub", () => {
    const file = join(tempDir(), "ledger.db");
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => new SqliteLedger(file, caps)).toThrow(
      /newer than this acphub understands/,
    );
  });

  it("copies a session's events up to a seq into a fork, with counts, next seq and trimming state", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    ledger.createSession(session("p", 1));
    for (const n of [1, 2, 3]) ledger.append("p", "update", { n });
    ledger.copySession("p", { ...session("f", 2), forkedFrom: "p" }, 2);
    expect(ledger.events("f").map((e) => e.payload["n"])).toEqual([1, 2]);
    expect(ledger.getSession("f")).toMatchObject({
      eventCount: 2,
      forkedFrom: "p",
      incomplete: false,
    });
    expect(ledger.append("f", "update", { n: 9 })).toBe(3);
    expect(ledger.events("p")).toHaveLength(3);
  });

  it("a fork of the oldest session at maxSessions keeps the copied events when the parent is evicted", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    ledger.createSession(session("p", 1));
    ledger.append("p", "update", { n: 1 });
    ledger.createSession(session("a", Date.now() + 10));
    ledger.createSession(session("b", Date.now() + 20));
    ledger.copySession("p", session("f", Date.now() + 30));
    expect(ledger.getSession("p")).toBeUndefined();
    expect(ledger.events("f").map((e) => e.payload["n"])).toEqual([1]);
  });

  it("stores a session's settings, and a session without any has null", () => {
    const ledger = new SqliteLedger(":memory:", caps);
    ledger.createSession(session("s", 1));
    expect(ledger.getSession("s")?.settings).toBeNull();
    const settings = { modes: { currentModeId: "code", availableModes: [] } };
    ledger.saveSettings("s", settings);
    expect(ledger.getSession("s")?.settings).toEqual(settings);
  });

  it("opens a ledger written by the first schema and adds the new columns", () => {
    const file = join(tempDir(), "old.db");
    const old = new Database(file);
    old.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, cwd TEXT NOT NULL,
      title TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, state TEXT NOT NULL,
      agent_session_id TEXT, request TEXT NOT NULL, incomplete INTEGER NOT NULL DEFAULT 0,
      event_count INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0,
      next_seq INTEGER NOT NULL DEFAULT 1);
      CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
      payload TEXT NOT NULL, bytes INTEGER NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
      INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request)
      VALUES ('old', 'a', '/w', 1, 1, 'active', '{}');`);
    old.pragma("user_version = 1");
    old.close();
    const ledger = new SqliteLedger(file, caps);
    expect(ledger.getSession("old")).toMatchObject({
      settings: null,
      forkedFrom: null,
    });
    ledger.close();
  });
});
