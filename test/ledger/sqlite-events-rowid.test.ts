// Schema 11 (issue 39): `events` becomes a rowid table with its primary key as an index, and
// both tables of the log hold the text last. A schema-10 ledger keeps every event, its counters
// and its rules (one event per session and seq; a deleted session takes its events along), and
// neither a seek nor a column read reads a merged reply's overflow pages any more.
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  migrate,
  migrationSql,
  SCHEMA_VERSION,
} from "../../src/ledger/sqlite/migrations.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { createLogger } from "../../src/shared/logger.js";
import { encodeRows, spoolRow } from "../../src/ledger/sqlite/spool-rows.js";
import { tempDir } from "../helpers/mock.js";

const reply = (text: string) =>
  JSON.stringify({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
    },
  });

// A schema-10 ledger: sessions s1 and s2, each with a prompt, a reply that runs to overflow
// pages and a turn's end (seqs 1..3) in `events`, counted on their rows; s1's next event (4) in
// the journal and its 5th spooled, as a writer killed -9 left them.
function schema10(path: string): string[] {
  const db = new Database(path);
  for (let v = 1; v <= 10; v++) db.exec(migrationSql(v));
  db.pragma("user_version = 10");
  const texts = ['{"prompt":[]}', reply("x".repeat(20_000)), "{}"];
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  for (const id of ["s1", "s2"]) {
    db.prepare(
      `INSERT INTO sessions (id, agent, cwd, created_at, updated_at, state, request, next_seq, event_count, bytes)
       VALUES (?, 'a', '/w', 1, 1, 'active', '{}', 4, 3, ?)`,
    ).run(id, bytes);
    texts.forEach((text, i) =>
      db
        .prepare(
          "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES (?, ?, ?, ?, ?, 1)",
        )
        .run(
          id,
          i + 1,
          ["prompt", "update", "turn_end"][i],
          text,
          Buffer.byteLength(text),
        ),
    );
  }
  const more = ['{"n":4}', '{"n":5}'];
  db.prepare(
    "INSERT INTO event_journal (session_id, seq, kind, payload, bytes, at) VALUES ('s1', 4, 'update', ?, 7, 1)",
  ).run(more[0]);
  db.prepare("INSERT INTO event_spool (body) VALUES (?)").run(
    encodeRows([spoolRow("s1", 5, "update", more[1]!, 7, 1)]),
  );
  db.close();
  return texts;
}

const tableSql = (path: string) => {
  const db = new Database(path, { readonly: true });
  const sql = db
    .prepare("SELECT sql FROM sqlite_master WHERE name = 'events'")
    .pluck()
    .get() as string;
  db.close();
  return sql;
};

it("migrates a schema-10 ledger's events into a rowid table, every event, counter and rule kept", async () => {
  const path = join(tempDir("acphub-rowid-"), "ledger.db");
  const texts = schema10(path);
  expect(tableSql(path)).toMatch(/WITHOUT ROWID/);
  const log = join(tempDir("acphub-rowid-log-"), "log.json");
  const logger = createLogger({ file: log, level: "info" });
  const ledger = new SqliteLedger(path, { logger });
  expect(tableSql(path)).not.toMatch(/WITHOUT ROWID/);
  // The step that copies the log says so, before and after (it takes a while on a large one).
  const said = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { msg: string; schema?: number });
  expect(said.filter((r) => r.schema === 11).map((r) => r.msg)).toEqual([
    expect.stringMatching(/^ledger: upgrading the event log/),
    "ledger: event log upgraded",
  ]);
  // The text last in both tables of the log, the journal's index kept.
  const check = new Database(path, { readonly: true });
  for (const table of ["events", "event_journal"]) {
    const columns = check.pragma(`table_info(${table})`) as { name: string }[];
    expect(columns.at(-1)?.name).toBe("payload");
  }
  expect(check.pragma("index_list(event_journal)")).toEqual([
    expect.objectContaining({ name: "event_journal_session" }),
  ]);
  check.close();
  const stored = (id: string) =>
    id === "s1" ? [...texts, '{"n":4}', '{"n":5}'] : texts;
  for (const id of ["s1", "s2"]) {
    expect((await ledger.read(id)).map((e) => [e.seq, e.text])).toEqual(
      stored(id).map((t, i) => [i + 1, t]),
    );
    expect(await ledger.getSession(id)).toMatchObject({
      eventCount: stored(id).length,
      bytes: stored(id).reduce((n, t) => n + Buffer.byteLength(t), 0),
    });
  }
  // The next event takes the next seq, and lands with the others once moved.
  expect(await ledger.append("s1", "update", { more: 1 })).toBe(6);
  await ledger.deleteSession("s2");
  await ledger.close();
  const db = new Database(path);
  expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
  const seqs = db
    .prepare("SELECT session_id, seq FROM events ORDER BY session_id, seq")
    .raw()
    .all();
  expect(seqs).toEqual([1, 2, 3, 4, 5, 6].map((seq) => ["s1", seq]));
  // Still one event per session and seq.
  expect(() =>
    db
      .prepare(
        "INSERT INTO events (session_id, seq, kind, payload, bytes, at) VALUES ('s1', 2, 'update', '{}', 2, 1)",
      )
      .run(),
  ).toThrow(/UNIQUE/);
  db.close();
});

it("says nothing of an upgrade when it makes a new ledger", async () => {
  const log = join(tempDir("acphub-rowid-log-"), "log.json");
  const ledger = new SqliteLedger(join(tempDir("acphub-rowid-"), "l.db"), {
    logger: createLogger({ file: log, level: "info" }),
  });
  await ledger.close();
  expect(readFileSync(log, "utf8")).not.toMatch(/upgrad/);
});

// The log lines of the copy step when a schema-10 ledger is migrated by a logger at `warn` (the
// default level), the copy said loudly from `loudAbove` bytes on.
function warnedCopy(loudAbove?: number) {
  const path = join(tempDir("acphub-rowid-"), "ledger.db");
  schema10(path);
  const log = join(tempDir("acphub-rowid-log-"), "log.json");
  const logger = createLogger({ file: log, level: "warn" });
  const db = new Database(path);
  migrate(db, path, logger, loudAbove);
  db.close();
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; mb?: number });
}

it("says a large ledger's copy at the level shown by default, with its size; a small one's only at info", () => {
  const loud = warnedCopy(0);
  expect(loud.map((r) => r.msg)).toEqual([
    expect.stringMatching(/^ledger: upgrading the event log of \d+ MB/),
    "ledger: event log upgraded",
  ]);
  expect(loud[0]!.mb).toBeGreaterThanOrEqual(0);
  expect(warnedCopy()).toEqual([]);
});
