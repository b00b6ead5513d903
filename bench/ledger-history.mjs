// What a session's history costs its next turn on the ledger: S sessions each run T turns
// of U chunk updates (R per session per tick) back to back, every turn compacted at its end as
// the hub does; printed for the first, middle and last tenth of the turns: the CPU of a turn's
// compaction (SQLite: its read and its write, this process's CPU; PostgreSQL: the time to its
// end), the CPU per update of the whole turn (this process's), and the time to read one
// session's whole log and its record (`getSession`). A cost that grows with the turns before it
// shows as a growing column. Run after `npm run build`; never part of the tests.
// BENCH_SESSIONS (4), BENCH_TURNS (200), BENCH_UPDATES (500), BENCH_PER_TICK (5);
// BENCH_LEDGER=postgres measures the PostgreSQL ledger (bench/pg-server.mjs) instead.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openLedgerAt } from "../dist/ledger/open.js";
import { SqliteCompaction } from "../dist/ledger/sqlite/compaction-sql.js";
import {
  envCount as count,
  createBenchSessions,
  streamReplies,
} from "./common.mjs";
import { benchPostgres } from "./pg-server.mjs";

const SESSIONS = count("BENCH_SESSIONS", 4);
const TURNS = count("BENCH_TURNS", 200);
const UPDATES = count("BENCH_UPDATES", 500);
const PER_TICK = count("BENCH_PER_TICK", 5);
const caps = { maxEventsPerSession: 10_000_000, maxBytesPerSession: 1 << 30 };

const dir = mkdtempSync(join(tmpdir(), "acphub-bench-history-"));
const pg =
  process.env.BENCH_LEDGER === "postgres" ? await benchPostgres() : undefined;
const ledger = await openLedgerAt(pg ? pg.url : join(dir, "l.db"), { caps });
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// The compaction's own CPU (its read of the turn's rows and its write), apart from the fold
// that precedes it.
let compactionCpu = 0;
for (const method of ["updateRows", "apply"]) {
  const inner = SqliteCompaction.prototype[method];
  SqliteCompaction.prototype[method] = function (...args) {
    const start = cpuUs();
    try {
      return inner.apply(this, args);
    } finally {
      compactionCpu += cpuUs() - start;
    }
  };
}

async function timed(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const ids = Array.from(
  { length: SESSIONS },
  (_, i) => `history-${process.pid}-${i}`,
);
await createBenchSessions(ledger, ids);

const tenth = Math.max(1, Math.floor(TURNS / 10));
const marks = new Set([tenth, Math.floor(TURNS / 2) + tenth, TURNS]);
let from = { cpu: cpuUs(), compaction: 0, turn: 0 };
console.log(
  `${pg ? "PostgreSQL" : "SQLite"} ledger, a session's history: ${SESSIONS} sessions × ${TURNS} turns of ${UPDATES} updates (${PER_TICK} per session per tick), each turn compacted at its end (load ${loadavg()[0].toFixed(1)}):`,
);
for (let turn = 1; turn <= TURNS; turn++) {
  const prompts = await Promise.all(
    ids.map((id) => ledger.append(id, "prompt", { prompt: [] })),
  );
  const appends = await streamReplies(ledger, ids, UPDATES, PER_TICK);
  await Promise.all(appends);
  const ends = await Promise.all(
    ids.map((id) => ledger.append(id, "turn_end", { stopReason: "end_turn" })),
  );
  for (const [i, id] of ids.entries()) {
    const start = pg && process.hrtime.bigint();
    await ledger.compact(id, prompts[i], ends[i]);
    if (pg) compactionCpu += Number(process.hrtime.bigint() - start) / 1000;
  }
  if (!marks.has(turn)) continue;
  const turns = turn - from.turn;
  const read = await timed(() => ledger.read(ids[0]));
  const record = await timed(() => ledger.getSession(ids[0]));
  console.log(
    `  turns ${String(from.turn + 1).padStart(4)}–${String(turn).padEnd(4)} compaction ${((compactionCpu - from.compaction) / turns / SESSIONS / 1000).toFixed(2).padStart(6)} ms/turn, ${((cpuUs() - from.cpu) / turns / SESSIONS / UPDATES).toFixed(2).padStart(5)} µs/update in all; then one session's log read in ${read.toFixed(1)} ms, its record in ${record.toFixed(2)} ms`,
  );
  from = { cpu: cpuUs(), compaction: compactionCpu, turn };
}
await ledger.close();
pg?.stop();
rmSync(dir, { recursive: true, force: true });
