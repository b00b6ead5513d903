// What reading and writing cost in a grown SQLite ledger: S sessions × T turns of U chunk
// updates, each turn compacted (128 MB at the defaults), made by one build and opened by another
// (a schema step, if any, runs at that open and is timed); then, in the opened ledger: a
// session's record (`getSession`, what a prompt reads), the session list's first 50 rows, a
// session's whole log, and one more turn per session with its compaction. Run after `npm run
// build`; never part of the tests.
// BENCH_SESSIONS (100), BENCH_TURNS (60), BENCH_UPDATES (500); BENCH_MAKE_DIST: the build that
// makes the ledger (e.g. /path/to/main/dist, to time the migration), BENCH_DIST: the build that
// opens it (both default to this one's dist); BENCH_LEDGER=postgres grows a PostgreSQL ledger
// instead (bench/pg-server.mjs; the same build makes and opens it).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  envCount as count,
  createBenchSessions,
  streamReplies,
} from "./common.mjs";
import { benchPostgres } from "./pg-server.mjs";

const here = new URL("../dist", import.meta.url).pathname;
const dist = (name) => process.env[name] ?? here;
const SESSIONS = count("BENCH_SESSIONS", 100);
const TURNS = count("BENCH_TURNS", 60);
const UPDATES = count("BENCH_UPDATES", 500);
const options = {
  caps: { maxEventsPerSession: 10_000_000, maxBytesPerSession: 1 << 30 },
};
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

// One turn of every session: a prompt, the reply's chunks (10 per session per tick), the end,
// then each turn compacted; the compactions' time.
async function turn(ledger, ids) {
  const prompts = await Promise.all(
    ids.map((id) => ledger.append(id, "prompt", { prompt: [] })),
  );
  const appends = await streamReplies(ledger, ids, UPDATES, 10);
  await Promise.all(appends);
  const ends = await Promise.all(
    ids.map((id) => ledger.append(id, "turn_end", {})),
  );
  const start = process.hrtime.bigint();
  for (const [i, id] of ids.entries())
    await ledger.compact(id, prompts[i], ends[i]);
  return ms(start);
}

const dir = mkdtempSync(join(tmpdir(), "acphub-bench-grown-"));
const pg =
  process.env.BENCH_LEDGER === "postgres" ? await benchPostgres() : undefined;
const file = pg ? pg.url : join(dir, "l.db");

// The ledger's size on disk (PostgreSQL: its database's).
async function sizeOf() {
  if (!pg) return statSync(file).size;
  const { default: postgres } = await import("pg");
  const client = new postgres.Client(pg.url);
  await client.connect();
  const { rows } = await client.query(
    "SELECT pg_database_size(current_database()) AS n",
  );
  await client.end();
  return Number(rows[0].n);
}
const ids = Array.from(
  { length: SESSIONS },
  (_, i) => `grown-${i}-${process.pid}`,
);
try {
  const made = await import(`${dist("BENCH_MAKE_DIST")}/ledger/open.js`);
  let ledger = await made.openLedgerAt(file, options);
  await createBenchSessions(ledger, ids);
  for (let t = 0; t < TURNS; t++) await turn(ledger, ids);
  await ledger.close();
  const size = await sizeOf();

  const opened = await import(`${dist("BENCH_DIST")}/ledger/open.js`);
  let start = process.hrtime.bigint();
  ledger = await opened.openLedgerAt(file, options);
  const open = ms(start);
  start = process.hrtime.bigint();
  for (let round = 0; round < 5; round++)
    for (const id of ids) await ledger.getSession(id);
  const record = (ms(start) * 1000) / (5 * SESSIONS);
  start = process.hrtime.bigint();
  for (let round = 0; round < 5; round++)
    await ledger.listSessions({ limit: 50 });
  const list = ms(start) / 5;
  start = process.hrtime.bigint();
  for (const id of ids) await ledger.read(id);
  const read = ms(start) / SESSIONS;
  const compaction = (await turn(ledger, ids)) / SESSIONS;
  await ledger.close();
  console.log(
    `${pg ? "PostgreSQL" : "SQLite"} ledger grown to ${SESSIONS} sessions × ${TURNS} turns of ${UPDATES} updates (${(size / 1e6).toFixed(0)} MB; load ${loadavg()[0].toFixed(1)}): open ${open.toFixed(0)} ms; a session's record ${record.toFixed(1)} µs; the list's first 50 rows ${list.toFixed(2)} ms; a session's whole log ${read.toFixed(2)} ms; one more turn's compaction ${compaction.toFixed(2)} ms`,
  );
} finally {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}
