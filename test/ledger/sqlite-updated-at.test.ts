// A streaming session's `updated_at` (in the session list's two indexes) is written with a batch
// at most once per STAMP_MS; the latest time follows from a timer, and on close: the counters are
// written with every batch (seq, counts), the list order is exact once the stream rests.
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { STAMP_MS } from "../../src/ledger/sqlite/updated-at.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";

const T0 = 1_800_000_000_000;
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});

// The session row's columns as another connection sees them.
function row(path: string, id: string) {
  const db = new Database(path, { readonly: true });
  const out = db
    .prepare(
      "SELECT updated_at, next_seq, event_count FROM sessions WHERE id = ?",
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
  it("writes it once per STAMP_MS with the batches, the counters every time, the last time on close", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const path = join(tempDir("acphub-stamps-"), "ledger.db");
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s1", T0 - 60_000));
    expect(await appendAt(ledger, "s1", T0)).toBe(1);
    expect(row(path, "s1").updated_at).toBe(T0);
    expect(await appendAt(ledger, "s1", T0 + 10)).toBe(2);
    expect(await appendAt(ledger, "s1", T0 + 20)).toBe(3);
    // the counters are on disk; the list's time waits (its indexes untouched)
    expect(row(path, "s1")).toEqual({
      updated_at: T0,
      next_seq: 4,
      event_count: 3,
    });
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 5)).toBe(4);
    expect(row(path, "s1").updated_at).toBe(T0 + STAMP_MS + 5);
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 30)).toBe(5);
    await ledger.close();
    expect(row(path, "s1").updated_at).toBe(T0 + STAMP_MS + 30);
  });

  it("writes a deferred time from its timer, so the list's order is right while the hub runs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const path = join(tempDir("acphub-stamps-"), "ledger.db");
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("a", T0 - 60_000));
    await ledger.createSession(session("b", T0 - 60_000));
    await appendAt(ledger, "a", T0);
    await appendAt(ledger, "b", T0 + 5);
    await appendAt(ledger, "a", T0 + 50); // deferred: a is now the newer one
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
