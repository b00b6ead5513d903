// What one group-commit batch costs inside PostgreSQL: the batch statement exactly as a build's
// ledger makes it (its pg-batch.js), run on one connection against a database that build
// migrated, timed by the server process's CPU (/proc/<backend pid>/stat: the figure that holds on
// a loaded machine) and by the wall clock, for batch shapes of sessions × events per session
// (1 × 480: `acphub acp` streaming; 300 × 1: `acphub serve` with 300 streaming sessions).
// Several builds are measured alternated in one run, each in a database of its own.
// Usage: npm run build && node bench/pg-batch.mjs
//   BENCH_DISTS=dist,/path/to/main/dist (default: this build), BENCH_SHAPES=1x480,100x5,300x1,
//   BENCH_BATCHES (100 per shape and round), BENCH_ROUNDS (3), BENCH_PG_URL (else a throwaway
//   server, fsync on).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { median } from "./common.mjs";
import { benchPostgres } from "./pg-server.mjs";

const DISTS = (process.env.BENCH_DISTS ?? "dist").split(",");
const SHAPES = (process.env.BENCH_SHAPES ?? "1x480,100x5,300x1")
  .split(",")
  .map((s) => s.split("x").map(Number));
const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CAPS = { maxEventsPerSession: 1e9, maxBytesPerSession: 1e12 };
const CHUNK = JSON.stringify({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "x" },
  },
});
const REQUEST = JSON.stringify({ cwd: "/w".repeat(20), mcpServers: [] });

// A process's user+system CPU so far (ms).
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

// A build: its ledger migrates a database of its own; a connection on it; its batch call.
async function build(dist, url, index) {
  const base = pathToFileURL(`${resolve(dist)}/ledger/postgres/`).href;
  const { PostgresLedger } = await import(`${base}pg-ledger.js`);
  const calls = await import(`${base}pg-batch.js`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = `acphub_batch_${process.pid}_${index}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const where = url.replace(/\/[^/]*$/, `/${name}`);
  await (await PostgresLedger.open(where)).close();
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
  await client.query(
    `INSERT INTO acphub_sessions (id, agent, cwd, created_at, updated_at, state, request)
     SELECT 'bench-' || g || '-${randomUUID()}', 'mock', '/w', 0, 0, 'active', $1
     FROM generate_series(1, 300) g`,
    [REQUEST],
  );
  const ids = (
    await client.query("SELECT id FROM acphub_sessions ORDER BY id")
  ).rows.map((r) => r.id);
  return { dist, client, pid: rows[0].pid, ids, calls, known: [], runs: {} };
}

// The statement a batch of `n` sessions × `per` events is, as the build's ledger makes it
// (a build with the stamps argument writes no session's `updated_at`: the usual batch).
function statement(b, n, per) {
  const now = Date.now();
  const batch = [];
  for (let k = 0; k < per; k++)
    for (let s = 0; s < n; s++)
      batch.push({
        sessionId: b.ids[s],
        kind: "update",
        text: CHUNK,
        bytes: CHUNK.length,
        at: now,
      });
  const c = b.calls.columnsOf(batch);
  const tag = { id: randomUUID(), forget: b.known };
  b.known = [tag.id];
  const stamps = c.sessions.map(() => 0);
  // A build that merges each session's chunk runs (schema 15) takes the rows it stores.
  if (b.calls.storedRows) {
    const rows = b.calls.storedRows(batch, c, (t) => t);
    return b.calls.batchCall(CAPS, c, rows, stamps, "bench", tag);
  }
  const { name, text, values } =
    b.calls.batchCall.length === 6
      ? b.calls.batchCall(CAPS, batch, c, stamps, "bench", tag)
      : b.calls.batchCall(CAPS, batch, c, "bench", tag);
  return { name, text, values };
}

// BATCHES batches of one shape: backend CPU and wall per batch (ms).
async function measure(b, n, per) {
  const cpu = cpuMs(b.pid);
  const start = performance.now();
  for (let i = 0; i < BATCHES; i++) await b.client.query(statement(b, n, per));
  return {
    cpu: (cpuMs(b.pid) - cpu) / BATCHES,
    wall: (performance.now() - start) / BATCHES,
  };
}

const server = await benchPostgres();
try {
  const builds = [];
  for (const [i, dist] of DISTS.entries())
    builds.push(await build(dist, server.url, i));
  for (let round = 0; round < ROUNDS; round++)
    for (const [n, per] of SHAPES)
      for (const b of builds) {
        const key = `${n}x${per}`;
        (b.runs[key] ??= []).push(await measure(b, n, per));
      }
  console.log(
    `one batch in the server, ${BATCHES} batches × ${ROUNDS} rounds per shape, builds alternated (load ${loadavg()[0].toFixed(1)})`,
  );
  for (const [n, per] of SHAPES)
    for (const b of builds) {
      const runs = b.runs[`${n}x${per}`];
      const cpu = median(runs.map((r) => r.cpu));
      const wall = median(runs.map((r) => r.wall));
      console.log(
        `  ${`${n} × ${per}`.padEnd(9)} ${b.dist}: backend CPU ${cpu.toFixed(2)} ms per batch (${((cpu * 1000) / (n * per)).toFixed(1)} µs per event; rounds ${runs.map((r) => r.cpu.toFixed(1)).join(", ")}), wall ${wall.toFixed(1)} ms`,
      );
    }
  for (const b of builds) await b.client.end();
} finally {
  server.stop();
}
