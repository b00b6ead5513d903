// The SQLite ledger's spool (schema 10, issue 39): a batch is committed as one row of
// `event_spool` before its events are relayed, and folded into the log later with each run of
// a reply's chunks merged; any connection folds every spooled row (another process's, a killed
// one's) before it reads, so nothing committed is lost or unseen.
import Database from "better-sqlite3";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { MERGE_FROM } from "../../src/ledger/sqlite/spool-merge.js";
import { decodeRows, encodeRows } from "../../src/ledger/sqlite/spool-rows.js";
import { tempDir, waitFor } from "../helpers/mock.js";
import { session } from "./contract.js";
import { logged } from "./sqlite-log.js";

const file = () => join(tempDir("acphub-spool-"), "ledger.db");
const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});
const textOf = (events: { text: string }[]) =>
  events
    .map(
      (e) =>
        (JSON.parse(e.text) as { update?: { content?: { text?: string } } })
          .update?.content?.text ?? "",
    )
    .join("");

// Rows per table, read on a connection of its own (the ledger's spool left as it is).
function tables(path: string) {
  const db = new Database(path, { readonly: true });
  const count = (table: string) =>
    Number(db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get());
  const out = {
    spool: count("event_spool"),
    log: count("events") + count("event_journal"),
  };
  db.close();
  return out;
}

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i} `);
// A reply of 64 KiB: its fold needs pages the database does not have yet.
const BIG = Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(2048, "."));

// The events of the spool's rows, read on a connection of its own.
function spooled(path: string) {
  const db = new Database(path, { readonly: true });
  const bodies = db
    .prepare("SELECT body FROM event_spool ORDER BY id")
    .pluck()
    .all() as string[];
  db.close();
  return bodies.flatMap((body) => decodeRows(body, () => undefined));
}

// The ledger's own connection, for a test to cap its database's size (PRAGMA max_page_count).
const connection = (ledger: SqliteLedger) =>
  (ledger as unknown as { db: Database.Database }).db;

// A writer process (spool-writer-process.mjs, given `args`) appending to a new session "s",
// killed -9 once it has acknowledged `acks` events; the seqs it acknowledged.
async function killedWriter(
  path: string,
  args: string[],
  acks: number,
): Promise<number[]> {
  const setup = new SqliteLedger(path);
  await setup.createSession(session("s"));
  await setup.close();
  const child = spawn(process.execPath, [WRITER, path, "s", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const acked: number[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    acked.push(Number(line));
    if (acked.length >= acks) break;
  }
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  return acked;
}

describe("SQLite ledger: the spool", () => {
  it("commits a batch as one spool row, then folds a reply's chunks into one row that reads from any cursor", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s"));
    const prompt = await ledger.append("s", "prompt", { prompt: [] });
    const seqs = await Promise.all(
      WORDS.map((w) => ledger.append("s", "update", chunk(w))),
    );
    expect(seqs).toEqual(WORDS.map((_, i) => prompt + 1 + i));
    expect(tables(path)).toEqual({ spool: 2, log: 0 }); // the prompt's batch, the reply's
    const events = await ledger.read("s");
    expect(tables(path)).toEqual({ spool: 0, log: 2 });
    expect(events.map((e) => e.seq)).toEqual([prompt, seqs.at(-1)]);
    expect(textOf(events)).toBe(WORDS.join(""));
    for (const [i, cursor] of seqs.entries())
      expect(textOf(await ledger.read("s", { afterSeq: cursor }))).toBe(
        WORDS.slice(i + 1).join(""),
      );
    expect(await ledger.getSession("s")).toMatchObject({ eventCount: 2 });
    expect(await ledger.append("s", "update", chunk("next"))).toBe(
      seqs.at(-1)! + 1,
    );
    await ledger.close();
    expect(tables(path)).toEqual({ spool: 0, log: 3 });
  });

  it("spools a batch's long run of chunks as one row, a short one as it came, and folds runs of two batches into one", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s"));
    await ledger.createSession(session("t"));
    const short = WORDS.slice(0, MERGE_FROM - 1);
    const [first] = await Promise.all([
      Promise.all(WORDS.map((w) => ledger.append("s", "update", chunk(w)))),
      Promise.all(short.map((w) => ledger.append("t", "update", chunk(w)))),
    ]);
    const rows = spooled(path);
    expect(rows.filter((r) => r.sessionId === "t")).toHaveLength(short.length);
    const merged = rows.filter((r) => r.sessionId === "s");
    expect(merged.map((r) => r.seq)).toEqual([first.at(-1)]);
    expect(textOf(merged)).toBe(WORDS.join(""));
    const more = await Promise.all(
      WORDS.map((w) => ledger.append("s", "update", chunk(w.toUpperCase()))),
    );
    const events = await ledger.read("s"); // folds both batches
    expect(events.map((e) => e.seq)).toEqual([more.at(-1)]);
    expect(textOf(events)).toBe(WORDS.join("") + WORDS.join("").toUpperCase());
    expect(
      textOf(await ledger.read("s", { afterSeq: first.at(-1)! + 2 })),
    ).toBe(WORDS.slice(2).join("").toUpperCase());
    expect(logged(path, "s")).toMatchObject({ eventCount: 1 });
    expect(await ledger.getSession("s")).toMatchObject(logged(path, "s"));
    expect(await ledger.getSession("t")).toMatchObject({
      eventCount: 1,
    });
    expect(await ledger.append("s", "update", chunk("end"))).toBe(
      more.at(-1)! + 1,
    );
    await ledger.close();
  });

  it("merges a session's run of MERGE_FROM chunks in a batch where 30 other sessions have one update each", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    const others = Array.from({ length: 30 }, (_, i) => `o${i}`);
    for (const id of ["s", ...others]) await ledger.createSession(session(id));
    const run = WORDS.slice(0, MERGE_FROM);
    const [seqs] = await Promise.all([
      Promise.all(run.map((w) => ledger.append("s", "update", chunk(w)))),
      ...others.map((id) => ledger.append(id, "update", chunk(id))),
    ]);
    const rows = spooled(path);
    expect(rows).toHaveLength(1 + others.length);
    const merged = rows.filter((r) => r.sessionId === "s");
    expect(merged.map((r) => r.seq)).toEqual([seqs.at(-1)]);
    expect(textOf(merged)).toBe(run.join(""));
    expect(await ledger.getSession("s")).toMatchObject({ eventCount: 1 });
    await ledger.close();
  });

  it("lets another connection read what a running writer spooled, the writer's seqs and counters staying exact", async () => {
    const path = file();
    const writer = new SqliteLedger(path);
    await writer.createSession(session("s"));
    await Promise.all(WORDS.map((w) => writer.append("s", "update", chunk(w))));
    const reader = new SqliteLedger(path);
    expect(textOf(await reader.read("s"))).toBe(WORDS.join(""));
    expect(await writer.append("s", "update", chunk("more"))).toBe(
      WORDS.length + 1,
    );
    expect(textOf(await reader.read("s"))).toBe(`${WORDS.join("")}more`);
    // The reply folded by the reader, "more" by the next read: two rows until the turn's compaction.
    expect(await reader.getSession("s")).toMatchObject({ eventCount: 2 });
    await reader.close();
    await writer.close();
  });

  it("reads a streaming session's record without folding the spool, its counters counting the spooled events", async () => {
    const path = file();
    const ledger = new SqliteLedger(path);
    await ledger.createSession(session("s"));
    await ledger.createSession(session("other"));
    await ledger.append("other", "update", chunk("x"));
    const prompt = await ledger.append("s", "prompt", { prompt: [] });
    const [stored] = await ledger.read("s"); // (the prompt folded)
    const parts = ["a ", "b ", "c"];
    await Promise.all(parts.map((p) => ledger.append("s", "update", chunk(p))));
    await ledger.append("other", "update", chunk("y"));
    const spool = tables(path).spool;
    const bytes = (text: string) => Buffer.byteLength(text);
    const record = await ledger.getSession("s");
    expect(tables(path).spool).toBe(spool); // nothing folded
    expect(record).toMatchObject({
      eventCount: 1 + parts.length,
      bytes:
        bytes(stored!.text) +
        parts.reduce((n, p) => n + bytes(JSON.stringify(chunk(p))), 0),
    });
    // Folded, the chunks are one event: the record says so.
    await ledger.read("s");
    expect(await ledger.getSession("s")).toMatchObject({ eventCount: 2 });
    expect(await ledger.append("s", "update", chunk("d"))).toBe(
      prompt + parts.length + 1,
    );
    await ledger.close();
  });

  it("folds another writer's chunks as they came: a secret split across them stays masked", async () => {
    const path = file();
    const mask = (text: string) => text.replaceAll("SECRET", "[masked]");
    const writer = new SqliteLedger(path, { mask });
    await writer.createSession(session("s"));
    const prompt = await writer.append("s", "prompt", { prompt: [] });
    const parts = ["a ", "SEC", "RET", " b"];
    const seqs = await Promise.all(
      parts.map((p) => writer.append("s", "update", chunk(p))),
    );
    // A process that does not know the secret (a CLI reading while the hub streams) folds them.
    const reader = new SqliteLedger(path);
    const stored = await reader.read("s");
    expect(stored.map((e) => e.seq)).toEqual([prompt, ...seqs]);
    expect(stored.map((e) => e.text).join("")).not.toContain("SECRET");
    await reader.close();
    // The writer's compaction merges them, masked.
    await writer.compact("s", prompt);
    const merged = await writer.read("s", { afterSeq: prompt });
    expect(merged.map((e) => e.seq)).toEqual([seqs.at(-1)]);
    expect(textOf(merged)).toBe("a [masked] b");
    await writer.close();
  });

  it("keeps what a writer killed -9 had spooled: the next open folds it", async () => {
    const path = file();
    const acked = await killedWriter(path, ["300", "k"], 150);
    expect(tables(path).spool).toBeGreaterThan(0); // it died with events spooled
    const ledger = new SqliteLedger(path);
    expect(tables(path).spool).toBe(0);
    const stored = (await ledger.events("s")).map((e) => e.payload["i"]);
    for (const seq of acked) expect(stored).toContain(seq - 1);
    expect(stored).toEqual([...stored].sort((a, b) => Number(a) - Number(b)));
    await ledger.close();
  });

  it("keeps the merged runs a writer killed -9 had spooled: the next open folds them, counted", async () => {
    const path = file();
    const acked = await killedWriter(path, ["400", "k", "chunks"], 100);
    expect(spooled(path).length).toBeLessThan(acked.length); // runs were spooled merged
    const ledger = new SqliteLedger(path);
    const events = await ledger.read("s");
    const text = textOf(events);
    const stored = text.split(" ").filter(Boolean).map(Number);
    expect(stored).toEqual(stored.map((_, i) => i));
    expect(stored.length).toBeGreaterThanOrEqual(Math.max(...acked));
    expect(logged(path, "s").eventCount).toBe(events.length);
    expect(await ledger.getSession("s")).toMatchObject(logged(path, "s"));
    expect(await ledger.append("s", "update", chunk("next"))).toBe(
      stored.length + 1,
    );
    await ledger.close();
  });

  it("keeps the events spooled when a fold cannot take the lock, and reads them once it can", async () => {
    const path = file();
    const ledger = new SqliteLedger(path, { busyTimeoutMs: 20 });
    await ledger.createSession(session("s"));
    await Promise.all(WORDS.map((w) => ledger.append("s", "update", chunk(w))));
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    await expect(ledger.read("s")).rejects.toMatchObject({
      code: "LEDGER_UNAVAILABLE",
    });
    expect(tables(path)).toEqual({ spool: 1, log: 0 });
    other.exec("ROLLBACK");
    other.close();
    expect(textOf(await ledger.read("s"))).toBe(WORDS.join(""));
    await ledger.close();
  });

  it("reads every spooled event when the disk cannot hold their fold", async () => {
    // A 1 MiB file system for the ledger: 16 KiB chunks are spooled until one is refused, so
    // the read's fold would need as much room again.
    const dir = tempDir("acphub-spool-full-");
    const bwrap = ["--dev-bind", "/", "/", "--die-with-parent"];
    const child = spawnSync(
      "bwrap",
      [
        ...[...bwrap, "--size", String(1024 * 1024), "--tmpfs", dir],
        ...[process.execPath, FULL_DISK, join(dir, "ledger.db")],
      ],
      { encoding: "utf8" },
    );
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout) as Record<string, string | number>;
    expect(out["error"]).toContain("the disk is full");
    expect(out["acked"]).toBeGreaterThan(2);
    const acked = Array.from({ length: Number(out["acked"]) }, (_, i) =>
      `${i}`.padEnd(16384, "."),
    );
    expect(out["read"]).toBe(acked.join(""));
  });

  it("numbers the next batch after the spooled events when a fold failed mid-way", async () => {
    const path = file();
    const warnings: string[] = [];
    const logger = pino({ level: "warn" }, { write: (l) => warnings.push(l) });
    const ledger = new SqliteLedger(path, { logger });
    await ledger.createSession(session("s"));
    const seqs = await Promise.all(
      BIG.map((w) => ledger.append("s", "update", chunk(w))),
    );
    const db = connection(ledger);
    const room = db.pragma("max_page_count", { simple: true });
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
    const failed = () =>
      warnings.some((w) => w.includes("folding the event spool failed"));
    expect(await waitFor(failed)).toBe(true); // the timer's fold (FOLD_MS on)
    expect(tables(path).spool).toBe(1);
    db.pragma(`max_page_count = ${room}`);
    expect(await ledger.append("s", "update", chunk("end"))).toBe(
      seqs.at(-1)! + 1,
    );
    expect(textOf(await ledger.read("s"))).toBe(`${BIG.join("")}end`);
    await ledger.close();
  });
});

describe("SQLite ledger: a damaged spool row", () => {
  it("folds the events before the damage, skips the rest with a warning naming the row, and opens", async () => {
    const path = file();
    const setup = new SqliteLedger(path);
    await setup.createSession(session("s"));
    await setup.close();
    const good = (seq: number) => ({
      sessionId: "s",
      seq,
      kind: "update" as const,
      text: JSON.stringify({ i: seq }),
      bytes: 7,
      at: 1,
    });
    const db = new Database(path);
    db.prepare("INSERT INTO event_spool (body) VALUES (?)").run(
      `${encodeRows([good(1)])}9,update,1,1,999;s{"i":`,
    );
    db.prepare("INSERT INTO event_spool (body) VALUES (?)").run(
      encodeRows([good(2)]),
    );
    db.close();
    const warnings: string[] = [];
    const logger = pino({ level: "warn" }, { write: (l) => warnings.push(l) });
    const ledger = new SqliteLedger(path, { logger });
    expect((await ledger.events("s")).map((e) => e.payload["i"])).toEqual([
      1, 2,
    ]);
    expect(tables(path).spool).toBe(0);
    expect(warnings.join("")).toContain("a damaged event spool row");
    expect(warnings.join("")).toContain('"spoolRow":1');
    await ledger.close();
  });
});

// Fills a small disk with spooled chunks, then reads them: what it saw, as JSON.
const FULL_DISK = fileURLToPath(
  new URL("./spool-full-disk-process.mjs", import.meta.url),
);

// Appends events { i } one per call and never closes: what it printed was committed.
const WRITER = fileURLToPath(
  new URL("./spool-writer-process.mjs", import.meta.url),
);
