// The SQLite ledger's share of bench/serve.mjs's load, without the hub: S sessions each stream one
// turn of N chunk updates at once (R updates per session per tick, interleaved as a group commit
// sees them), then each turn is compacted as the hub does when it ends. Prints the ledger's CPU per
// update for the appends (batches, the journal's moves) and for the compactions, the median of
// BENCH_ROUNDS rounds, with the load. Never part of the tests.
// BENCH_SESSIONS (100), BENCH_UPDATES (500), BENCH_PER_TICK (3), BENCH_ROUNDS (3);
// BENCH_DIST=/path/to/main/dist for another build's ledger.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createBenchSessions, median, streamReplies } from "./common.mjs";

const dist = resolve(
  process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname,
);
const { openLedgerAt } = await import(join(dist, "ledger/open.js"));

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 500);
const PER_TICK = Number(process.env.BENCH_PER_TICK ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const caps = { maxEventsPerSession: 1_000_000, maxBytesPerSession: 1 << 30 };

const cpuUs = (since) => {
  const c = process.cpuUsage(since);
  return c.user + c.system;
};

// One round on a fresh ledger: µs of CPU per update for the appends and for the compactions.
async function round() {
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-turns-"));
  const ledger = await openLedgerAt(join(dir, "ledger.db"), { caps });
  const ids = Array.from({ length: SESSIONS }, (_, i) => `hub-turns-${i}`);
  await createBenchSessions(ledger, ids);
  const prompts = [];
  for (const id of ids)
    prompts.push(await ledger.append(id, "prompt", { prompt: [] }));
  const start = process.cpuUsage();
  const appends = await streamReplies(ledger, ids, UPDATES, PER_TICK);
  await Promise.all(appends);
  const appended = cpuUs(start);
  for (const [i, id] of ids.entries()) await ledger.compact(id, prompts[i]);
  const total = cpuUs(start);
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
  const updates = SESSIONS * UPDATES;
  return { append: appended / updates, compact: (total - appended) / updates };
}

const runs = [];
for (let i = 0; i < ROUNDS; i++) runs.push(await round());
const append = median(runs.map((r) => r.append));
const compact = median(runs.map((r) => r.compact));
console.log(
  `ledger, ${SESSIONS} sessions × 1 turn of ${UPDATES} updates (${PER_TICK} per session per tick), median of ${ROUNDS}: appends ${append.toFixed(1)} µs CPU per update, compaction ${compact.toFixed(1)} µs, total ${(append + compact).toFixed(1)} µs (load ${loadavg()[0].toFixed(1)})`,
);
