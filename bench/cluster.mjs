// The cluster's chaos check (issues 23 and 37), a bench and never part of the tests: a throwaway
// PostgreSQL, 3 `acphub serve` nodes on it, 30 sessions each prompted continuously by a client
// that sends every prompt to a node picked at random (no stickiness, as behind a load balancer
// without it: BENCH_STICKY=1 for one node per client), the mock agent streaming unique chunks
// "s3p7u2 ", each session watched by a client on another node, while a random node is killed
// -9 and restarted every 10–20 s (BENCH_NO_KILL=1: never). Issue 37's figures: agent
// restarts (a session's turn answered by another agent process than its previous turn: the
// mock reports its pid each turn), and the first update's latency of a prompt sent to the
// node running the session (local) vs to another node (carried there), p50/p99.
// Prints updates acknowledged (sent to the prompting client, which the hub does only after
// COMMIT) vs stored (in the ledger at the end) vs delivered (to any client): lost (acknowledged,
// not stored) and duplicates (stored or sent to one client twice) must be 0, and each session's
// stored chunks in prompt order; takeover time (kill → the first reply chunk of a turn prompted
// after it, for each session the dead node held) p50/p99, beside the node's restart time;
// cross-node delivery latency (prompting client → watcher on another node) p50/p99; turns failed.
// Env: BENCH_SECONDS (120), BENCH_SESSIONS (30), BENCH_KILL_MIN_S / BENCH_KILL_MAX_S (10 / 20),
// BENCH_LEASE_MS (10000, cluster.leaseMs), BENCH_CHUNKS (10 a turn, 100 ms apart).
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { startPostgres } from "../scripts/postgres-server.mjs";
import { CLI } from "./common.mjs";
import { SessionClient, Tally, tokensOf } from "./cluster-client.mjs";

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SECONDS = env("BENCH_SECONDS", 120);
const SESSIONS = env("BENCH_SESSIONS", 30);
const KILL_MIN_S = env("BENCH_KILL_MIN_S", 10);
const KILL_MAX_S = env("BENCH_KILL_MAX_S", 20);
const LEASE_MS = env("BENCH_LEASE_MS", 10_000);
const CHUNKS = env("BENCH_CHUNKS", 10);
const STICKY = process.env["BENCH_STICKY"] === "1";
const NODES = 3;
const TOKEN = "bench-cluster-token";
const START_TIMEOUT_MS = 120_000;
const work = mkdtempSync(join(tmpdir(), "acphub-bench-cluster-"));
/** The sessions' folder: apart from the nodes' homes, which no session may hold. */
const cwd = mkdtempSync(join(tmpdir(), "acphub-bench-cluster-cwd-"));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// A node's home: the mock agent, the lease, caps high enough for the run.
function nodeHome(i) {
  const dir = mkdtempSync(join(work, `node${i}-`));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents: {
        mock: { command: process.execPath, args: [CLI, "mock-agent"] },
      },
      ledger: { maxEventsPerSession: 1_000_000, maxSessions: 100_000 },
      limits: { sessionsPerMinute: 100_000 },
      serve: { maxConnections: 1000, maxFailedAuth: 100_000 },
      cluster: { leaseMs: LEASE_MS },
    }),
  );
  return dir;
}

// Starts (or restarts) a node on its fixed port; resolves once it listens.
async function startNode(node, url) {
  const log = openSync(join(work, `${node.id}.log`), "a");
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--port", String(node.port), "--json", "--node-id", node.id],
    {
      env: {
        ...process.env,
        ACPHUB_HOME: node.home,
        ACPHUB_LEDGER_URL: url,
        ACPHUB_TOKEN: TOKEN,
      },
      stdio: ["ignore", "pipe", log],
    },
  );
  node.child = child;
  node.exited = new Promise((resolve) => child.once("exit", resolve));
  const line = await Promise.race([
    new Promise((resolve) =>
      createInterface({ input: child.stdout }).once("line", resolve),
    ),
    node.exited.then(() => {
      throw new Error(
        `${node.id} exited at start (see ${work}/${node.id}.log)`,
      );
    }),
    sleep(START_TIMEOUT_MS).then(() => {
      throw new Error(`${node.id} did not start in ${START_TIMEOUT_MS} ms`);
    }),
  ]);
  node.acpUrl = `${JSON.parse(line).url.replace(/^http/, "ws")}/acp`;
  node.up = true;
}

const TURN_STEPS = (s, p) =>
  JSON.stringify({
    steps: [
      { pid: true },
      ...Array.from({ length: CHUNKS }, (_, u) => [
        { text: `s${s}p${p}u${u} ` },
        { sleep: 100 },
      ]).flat(),
    ],
  });

// Makes one session on node i % NODES; its id.
async function newSession(i, nodes) {
  const node = nodes[i % NODES];
  const c = new SessionClient("setup", "", i % NODES, nodes, new Tally(), cwd);
  await c.connectTo(i % NODES, node).catch(() => undefined); // resume of "" fails: connected
  const { sessionId } = await c.ask("session/new", {
    cwd,
    mcpServers: [],
  });
  c.close();
  return sessionId;
}

const stats = { ok: 0, cancelled: 0, failed: 0, refused: 0, errors: new Map() };
/** First update after the prompt was sent (ms): sent to the session's runner, or carried. */
const firstUpdate = { local: [], routed: [] };
/** Turns answered by another agent process than the session's previous turn. */
const restarts37 = { total: 0, withoutDeath: 0 };
/** sessionId → the agent pid of its last turn, and whether a node died since. */
const lastPid = new Map();
let killsSoFar = 0;
const takeovers = [];
const restarts = [];
/** sessionId → kill time, for sessions whose node died, until a new turn's update arrives. */
const pending = new Map();

// The node that holds a session's lease now, if any.
async function runnerOf(db, sessionId) {
  const { rows } = await db.query(
    "SELECT node_id FROM acphub_leases WHERE session_id = $1 AND expires >= (extract(epoch from clock_timestamp()) * 1000)::bigint",
    [sessionId],
  );
  return rows[0]?.node_id;
}

// Notes the turn's agent pid: a change is an agent restart (counted apart when a node died).
function notePid(sessionId, text) {
  const m = /pid: (\d+)/.exec(text);
  if (!m) return;
  const before = lastPid.get(sessionId);
  if (before && before.pid !== m[1]) {
    restarts37.total += 1;
    if (before.kills === killsSoFar) restarts37.withoutDeath += 1;
  }
  lastPid.set(sessionId, { pid: m[1], kills: killsSoFar });
}

// One session's prompting client: a turn after another until the end, each sent to a node
// picked at random (or always the client's own with BENCH_STICKY=1); every outcome counted.
async function drive(s, client, db, nodes, end) {
  for (let p = 0; performance.now() < end; p++) {
    try {
      const next = Math.floor(Math.random() * NODES);
      if (!STICKY && next !== client.node && nodes[next].up) {
        client.close();
        await client.connectTo(next, nodes[next]).catch(() => client.close());
      }
      if (!client.open) await client.connect();
      const holder = await runnerOf(db, client.sessionId).catch(
        () => undefined,
      );
      const routed = holder !== undefined && holder !== nodes[client.node].id;
      const started = performance.now();
      let first = true;
      client.onText = (said) => notePid(client.sessionId, said);
      // The first reply of a turn prompted after the kill: the session runs again.
      client.onReply = (at) => {
        if (first) {
          first = false;
          (routed ? firstUpdate.routed : firstUpdate.local).push(at - started);
        }
        const killed = pending.get(client.sessionId);
        if (killed !== undefined && started > killed) {
          takeovers.push(at - killed);
          pending.delete(client.sessionId);
        }
      };
      const r = await client.ask("session/prompt", {
        sessionId: client.sessionId,
        prompt: [{ type: "text", text: TURN_STEPS(s, p) }],
      });
      if (r.stopReason === "end_turn") stats.ok += 1;
      else stats.cancelled += 1;
    } catch (error) {
      const message = String(error.message);
      if (/running a turn on node|already has a turn running/.test(message))
        stats.refused += 1;
      else {
        stats.failed += 1;
        const key = message.replace(/hub-[\w-]+|node-\d/g, "…").slice(0, 90);
        stats.errors.set(key, (stats.errors.get(key) ?? 0) + 1);
      }
      await sleep(250);
    }
  }
}

// A watcher: reconnects whenever its node dies, until the end.
async function watch(client, end) {
  while (performance.now() < end) {
    if (!client.open) await client.connect().catch(() => undefined);
    await sleep(200);
  }
}

// Every KILL_MIN_S–KILL_MAX_S seconds a random node is killed -9 and started again.
async function chaos(nodes, url, db, end) {
  let kills = 0;
  if (process.env["BENCH_NO_KILL"] === "1") return kills;
  for (;;) {
    const wait =
      (KILL_MIN_S + Math.random() * (KILL_MAX_S - KILL_MIN_S)) * 1000;
    if (performance.now() + wait >= end) return kills;
    await sleep(wait);
    const node = nodes[Math.floor(Math.random() * NODES)];
    const { rows } = await db.query(
      "SELECT session_id FROM acphub_leases WHERE node_id = $1",
      [node.id],
    );
    node.up = false;
    node.child.kill("SIGKILL");
    await node.exited;
    killsSoFar += 1;
    const at = performance.now();
    for (const r of rows)
      if (!pending.has(r.session_id)) pending.set(r.session_id, at);
    kills += 1;
    await startNode(node, url);
    restarts.push(performance.now() - at);
  }
}

// The tokens stored per session at the end, and how many of them twice.
async function storedTokens(db) {
  const { rows } = await db.query(
    "SELECT payload::text AS p FROM acphub_events WHERE kind = 'update' ORDER BY session_id, seq",
  );
  const stored = new Set();
  let duplicates = 0;
  let disordered = 0;
  const last = new Map();
  for (const { p } of rows)
    for (const token of tokensOf(JSON.parse(p).update)) {
      if (stored.has(token)) duplicates += 1;
      stored.add(token);
      const [s, turn, u] = token.match(/\d+/g).map(Number);
      const prev = last.get(s) ?? [-1, -1];
      if (turn < prev[0] || (turn === prev[0] && u <= prev[1])) disordered += 1;
      last.set(s, [turn, u]);
    }
  return { stored, duplicates, disordered };
}

const pct = (values, p) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))
  ];
};
const ms = (v) => (Number.isNaN(v) ? "n/a" : `${Math.round(v)} ms`);

// Prompting client → watcher on another node, for every token both got live.
function crossNode(tally) {
  const samples = [];
  for (const [token, d] of tally.driver) {
    const w = tally.watcher.get(token);
    if (w && w.node !== d.node) samples.push(w.t - d.t);
  }
  return samples;
}

function report(tally, { stored, duplicates: storedDupes, disordered }, kills) {
  const acknowledged = tally.acked.size;
  const lost = [...tally.acked].filter((t) => !stored.has(t)).length;
  const cross = crossNode(tally);
  const lines = [
    `acphub cluster chaos: ${NODES} nodes, ${SESSIONS} sessions, ${SECONDS} s, ${kills} kills -9, leaseMs ${LEASE_MS} (load ${load()})`,
    `updates: acknowledged ${acknowledged}, stored ${stored.size}, delivered ${tally.delivered.size}; lost ${lost}, duplicates ${storedDupes} stored + ${tally.duplicates} sent twice, ${disordered} stored out of order`,
    `takeover: p50 ${ms(pct(takeovers, 50))}, p99 ${ms(pct(takeovers, 99))} (${takeovers.length} sessions; ${pending.size} not prompted again); node restart p50 ${ms(pct(restarts, 50))}`,
    `cross-node delivery: p50 ${ms(pct(cross, 50))}, p99 ${ms(pct(cross, 99))} (${cross.length} updates)`,
    `first update: sent to the runner p50 ${ms(pct(firstUpdate.local, 50))}, p99 ${ms(pct(firstUpdate.local, 99))} (${firstUpdate.local.length} turns); carried from another node p50 ${ms(pct(firstUpdate.routed, 50))}, p99 ${ms(pct(firstUpdate.routed, 99))} (${firstUpdate.routed.length} turns)`,
    `agent restarts: ${restarts37.withoutDeath} while no node died, ${restarts37.total} in all (${STICKY ? "sticky clients" : "every prompt to a random node"})`,
    `turns: ${stats.ok} end_turn, ${stats.cancelled} cancelled, ${stats.failed} failed; ${stats.refused} prompts refused while another node ran the session`,
    ...[...stats.errors].map(([m, n]) => `  failed ${n}× ${m}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return (
    lost === 0 &&
    storedDupes === 0 &&
    tally.duplicates === 0 &&
    disordered === 0
  );
}

async function main() {
  const server = await startPostgres({ fsync: false });
  const url = await server.database();
  const db = new pg.Client({ connectionString: url });
  // The drivers' look-ups of a session's runner, many at once: a pool, not the one client.
  const leases = new pg.Pool({ connectionString: url, max: 4 });
  const nodes = [];
  try {
    for (let i = 0; i < NODES; i++) {
      const node = {
        id: `node-${i}`,
        home: nodeHome(i),
        port: await freePort(),
        token: TOKEN,
      };
      nodes.push(node);
      await startNode(node, url);
    }
    await db.connect();
    const tally = new Tally();
    const ids = [];
    for (let i = 0; i < SESSIONS; i++) ids.push(await newSession(i, nodes));
    // A session's prompting client: one connection at a time, to the node it picked for its
    // prompt (resumed from its cursor there), as behind a load balancer without stickiness.
    const drivers = ids.map(
      (id, i) => new SessionClient("driver", id, i % NODES, nodes, tally, cwd),
    );
    const watchers = ids.map(
      (id, i) =>
        new SessionClient("watcher", id, (i + 1) % NODES, nodes, tally, cwd),
    );
    const end = performance.now() + SECONDS * 1000;
    const [kills] = await Promise.all([
      chaos(nodes, url, db, end),
      ...drivers.map((c, i) => drive(i, c, leases, nodes, end)),
      ...watchers.map((c) => watch(c, end)),
    ]);
    await sleep(2000); // the watchers' last reads
    for (const c of [...drivers, ...watchers]) c.close();
    const clean = report(tally, await storedTokens(db), kills);
    process.exitCode = clean ? 0 : 1;
  } finally {
    await db.end().catch(() => undefined);
    await leases.end().catch(() => undefined);
    for (const node of nodes) node.child?.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    server.stop();
  }
}

await main();
