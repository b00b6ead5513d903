// A streaming session's `updated_at` (in the session list's two indexes) is written with the fold
// of its spooled events (schema 10) at most once per STAMP_MS; the latest time follows from a
// timer, and on close: the list order is exact once the stream rests. The row's counters are a
// checkpoint written with it (schema 9): every reader counts the events after it, so the
// counters read are exact every time.
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import {
  STAMP_MS,
  UpdatedAtStamps,
  WRITTEN_KEPT,
} from "../../src/ledger/sqlite/updated-at.js";
import { silentLogger } from "../../src/shared/logger.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";

const T0 = 1_800_000_000_000;
// Each its own message, so that the spool's fold merges none.
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    messageId: text,
    content: { type: "text", text },
  },
});

// The spooled events folded into the log (any read does it), with the times and counters due.
const fold = (ledger: SqliteLedger) => ledger.read("none");

// The session's columns as another connection sees them: on its row (`sessions`, the
// checkpoint) or as every reader reads it (`session_rows`, counters exact).
function row(path: string, id: string, table = "sessions") {
  const db = new Database(path, { readonly: true });
  const out = db
    .prepare(
      `SELECT updated_at, next_seq, event_count FROM ${table} WHERE id = ?`,
    )
    .get(id) as { updated_at: number; next_seq: number; event_count: number };
  db.close();
  return out;
}

// Appends one update at the (faked) time `at`.
async function appendAt(ledger: SqliteLedger, id: string, at: number) {
  vi.setSystemTime(at);
  return ledger.append(id, "update", chunk(`at ${at}`));
}

afterEach(() => vi.useRealTimers());

describe("SQLite ledger: updated_at while a session streams", () => {
  it("writes it once per STAMP_MS with the folds, the counters with it (exact when read every time), the last time on close", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const path = join(tempDir("acphub-stamps-"), "ledger.db");
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s1", T0 - 60_000));
    expect(await appendAt(ledger, "s1", T0)).toBe(1);
    expect(row(path, "s1").updated_at).toBe(T0 - 60_000); // spooled
    await fold(ledger);
    expect(row(path, "s1").updated_at).toBe(T0);
    expect(await appendAt(ledger, "s1", T0 + 10)).toBe(2);
    expect(await appendAt(ledger, "s1", T0 + 20)).toBe(3);
    await fold(ledger);
    // the row waits, time and counters (its indexes untouched, the row not rewritten); a
    // reader counts the journal's rows after the checkpoint
    expect(row(path, "s1")).toEqual({
      updated_at: T0,
      next_seq: 2,
      event_count: 1,
    });
    expect(row(path, "s1", "session_rows")).toEqual({
      updated_at: T0,
      next_seq: 4,
      event_count: 3,
    });
    expect(await ledger.getSession("s1")).toMatchObject({ eventCount: 3 });
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 5)).toBe(4);
    await fold(ledger);
    expect(row(path, "s1")).toEqual({
      updated_at: T0 + STAMP_MS + 5,
      next_seq: 5,
      event_count: 4,
    });
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 30)).toBe(5);
    await ledger.close();
    expect(row(path, "s1")).toEqual({
      updated_at: T0 + STAMP_MS + 30,
      next_seq: 6,
      event_count: 5,
    });
  });

  it("writes a deferred time from its timer, so the list's order is right while the hub runs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const path = join(tempDir("acphub-stamps-"), "ledger.db");
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a", T0 - 60_000));
    await ledger.createSession(session("b", T0 - 60_000));
    await appendAt(ledger, "a", T0);
    await appendAt(ledger, "b", T0 + 5);
    await fold(ledger);
    await appendAt(ledger, "a", T0 + 50); // deferred: a is now the newer one
    await fold(ledger);
    expect(row(path, "a").updated_at).toBe(T0);
    vi.useRealTimers();
    for (let i = 0; i < 100 && row(path, "a").updated_at === T0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(row(path, "a").updated_at).toBe(T0 + 50);
    const list = await ledger.listSessions({});
    expect(list.sessions.map((s) => s.id)).toEqual(["a", "b"]);
    await ledger.close();
  });
});

describe("SQLite ledger: the sessions the stamps remember", () => {
  it("forgets those not written for STAMP_MS once many were streamed, writing each next time as before", () => {
    const db = new Database(":memory:");
    db.exec(
      "CREATE TABLE sessions (id TEXT PRIMARY KEY, updated_at INTEGER, next_seq INTEGER, event_count INTEGER, bytes INTEGER)",
    );
    const stamps = new UpdatedAtStamps(db, silentLogger());
    const counters = (at: number) => ({
      nextSeq: 2,
      eventCount: 1,
      bytes: 1,
      at,
    });
    for (let i = 0; i < WRITTEN_KEPT; i++)
      expect(stamps.due(`old-${i}`, counters(T0))).toBe(true);
    expect(stamps.remembered).toBe(WRITTEN_KEPT);
    // A STAMP_MS later, a new session's write prunes every older one.
    expect(stamps.due("new", counters(T0 + STAMP_MS))).toBe(true);
    expect(stamps.remembered).toBe(1);
    // A session forgotten is written at its next batch, as it would have been.
    expect(stamps.due("old-0", counters(T0 + STAMP_MS + 1))).toBe(true);
    // One written within STAMP_MS is still deferred.
    expect(stamps.due("new", counters(T0 + STAMP_MS + 2))).toBe(false);
    stamps.flush();
    db.close();
  });
});
