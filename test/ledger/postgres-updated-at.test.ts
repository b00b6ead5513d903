// PostgreSQL schema 14: a streaming session's `updated_at` (in the session list's two indexes) is
// written with a batch at most once per STAMP_MS; the latest time follows from a timer, and on
// close: the counters are written with every batch, nothing appended is lost, and the list's
// order is exact once the stream rests. A session's events go with it by a trigger (no foreign
// key checked per event), whoever deletes it, and an older node's batch function still works.
import pg from "pg";
import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  it,
  vi,
} from "vitest";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { STAMP_MS } from "../../src/ledger/postgres/pg-updated-at.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { session } from "./contract.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());
afterEach(() => vi.useRealTimers());

const T0 = 1_800_000_000_000;
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});

// Runs one statement on a connection of the test's own, beside the ledger's.
async function sql(
  url: string,
  text: string,
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

// The session row's columns as another connection sees them.
async function row(url: string, id: string) {
  const [r] = await sql(
    url,
    `SELECT updated_at, next_seq, event_count FROM acphub_sessions WHERE id = '${id}'`,
  );
  return {
    updated_at: Number(r?.["updated_at"]),
    next_seq: Number(r?.["next_seq"]),
    event_count: Number(r?.["event_count"]),
  };
}

// Appends one update at the (faked) time `at`.
async function appendAt(ledger: PostgresLedger, id: string, at: number) {
  vi.setSystemTime(at);
  return ledger.append(id, "update", chunk(`at ${at}`));
}

describe("PostgreSQL ledger: updated_at while a session streams (schema 14)", () => {
  it("writes it once per STAMP_MS with the batches, the counters every time, the last time on close", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    await ledger.createSession(session("s1", T0 - 60_000));
    expect(await appendAt(ledger, "s1", T0)).toBe(1);
    expect((await row(url, "s1")).updated_at).toBe(T0);
    expect(await appendAt(ledger, "s1", T0 + 10)).toBe(2);
    expect(await appendAt(ledger, "s1", T0 + 20)).toBe(3);
    // the counters are written; the list's time waits (its indexes untouched)
    expect(await row(url, "s1")).toEqual({
      updated_at: T0,
      next_seq: 4,
      event_count: 3,
    });
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 5)).toBe(4);
    expect((await row(url, "s1")).updated_at).toBe(T0 + STAMP_MS + 5);
    expect(await appendAt(ledger, "s1", T0 + STAMP_MS + 30)).toBe(5);
    await ledger.close();
    expect(await row(url, "s1")).toEqual({
      updated_at: T0 + STAMP_MS + 30,
      next_seq: 6,
      event_count: 5,
    });
    const again = await PostgresLedger.open(url);
    expect((await again.events("s1")).map((e) => e.seq)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    await again.close();
  });

  it("writes a deferred time from its timer, so the list's order is right while the hub runs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    await ledger.createSession(session("a", T0 - 60_000));
    await ledger.createSession(session("b", T0 - 60_000));
    await appendAt(ledger, "a", T0);
    await appendAt(ledger, "b", T0 + 5);
    await appendAt(ledger, "a", T0 + 50); // deferred: a is now the newer one
    expect((await row(url, "a")).updated_at).toBe(T0);
    vi.useRealTimers();
    for (let i = 0; i < 100 && (await row(url, "a")).updated_at === T0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await row(url, "a")).updated_at).toBe(T0 + 50);
    const list = await ledger.listSessions({});
    expect(list.sessions.map((s) => s.id)).toEqual(["a", "b"]);
    await ledger.close();
  });

  it("never moves a time back: a deferred time older than one written since stays unwritten", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    await ledger.createSession(session("s1", T0 - 60_000));
    await appendAt(ledger, "s1", T0);
    await appendAt(ledger, "s1", T0 + 10); // deferred
    // Another node wrote a later time meanwhile.
    await sql(url, `UPDATE acphub_sessions SET updated_at = ${T0 + 500}`);
    await ledger.close();
    expect((await row(url, "s1")).updated_at).toBe(T0 + 500);
  });

  it("deletes a session's events with it, whoever deletes it, and an older node's batch still writes", async () => {
    const url = await server.database();
    const ledger = await PostgresLedger.open(url);
    await ledger.createSession(session("s1"));
    await ledger.createSession(session("s2"));
    await ledger.append("s1", "update", { i: 1 });
    await ledger.append("s2", "update", { i: 1 });
    // An older node (schema 7 to 13) calls the schema-7 function, which writes updated_at.
    const [old] = await sql(
      url,
      `SELECT acphub_write_batch(ARRAY['s1'], ARRAY[2], ARRAY[14]::bigint[], ARRAY[${T0}]::bigint[],
         ARRAY[1, 1], ARRAY[0, 1], 'update,update', '{"i":2}' || chr(30) || '{"i":3}',
         ARRAY[7, 7], ARRAY[${T0}, ${T0}]::bigint[], 'old-batch', '{}', NULL, 'old-node',
         ${T0}, 1000000, 1000000000) AS firsts`,
    );
    expect(old?.["firsts"]).toBe("[2]");
    expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
      1, 2, 3,
    ]);
    expect(await row(url, "s1")).toEqual({
      updated_at: T0,
      next_seq: 4,
      event_count: 3,
    });
    // No foreign key is checked for each inserted event any more…
    expect(
      await sql(
        url,
        "SELECT conname FROM pg_constraint WHERE conrelid = 'acphub_events'::regclass AND contype = 'f'",
      ),
    ).toEqual([]);
    // …and an older node deleting with a plain statement still takes the events (the trigger).
    await sql(url, "DELETE FROM acphub_sessions WHERE id = 's1'");
    await ledger.deleteSession("s2");
    expect(await sql(url, "SELECT session_id FROM acphub_events")).toEqual([]);
    await ledger.close();
  });
});
