// acphub serve under load, measured the way issue 39's table says: N WebSocket clients, each
// prompting its own session on one mock agent (all turns at once), at 100 clients × 2,000
// updates and 300 × 1,000: the hub's CPU per relayed update (read from /proc for the hub process
// alone: agents and clients excluded; its system part and its other threads' part apart: V8
// compiling and collecting beside the main thread; its read and write system calls and how often
// its main thread slept for want of input, per update), time to first update (p50/p99),
// errors, peak RSS. The same clients then run, back to back, against the pipe floor
// (bench/ws-pipe.mjs: an agent per connection, lines piped to frames, nothing parsed or stored),
// the storing floor (bench/ws-store.mjs: the pipe plus a seq per update and one SQLite commit
// every 2 ms while busy before the frames go out: what the hub's guarantees need, nothing else)
// and the routing anchor (bench/ws-anchor.mjs: one agent for all, each line routed by a regular
// expression).
// Printed side by side with hub ÷ floor, hub ÷ store, store ÷ floor, hub ÷ anchor and 300 ÷ 100,
// and the load average of each run. Each relay runs each count twice in the same process: first
// (a fresh process, as issue 39's table measured it: V8 compiling the hot code counts) and again
// with new clients and sessions (what a long-running process pays per update).
// Then one client's WebSocket relay rate versus `acphub acp` over stdio (BENCH_RELAY=0 skips it).
// BENCH_ROUNDS (3) repeats each count, the hub and the bare relays back to back each round, and
// prints the medians and the median of each round's ratios.
// BENCH_TURNS=T: each client runs T turns back to back, its first cut short (client i of N:
// (i + 1) / N of the updates) so that the turns end at different times, as in a running hub
// where finished turns are compacted while other sessions stream (default 1: every turn at once).
// BENCH_CLIENTS=N runs one count (300 and more use 1,000 updates each), BENCH_UPDATES,
// BENCH_QUICK=1 (20 × 500); ACPHUB_CLI measures another build's hub; BENCH_HUB_ONLY=1 runs the
// hub alone (no floor, anchor or relay rate). Never part of the tests.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import {
  benchDir,
  CLI,
  compactedCpu,
  cpuSeconds,
  envCount,
  HUB_CLI,
  mainThreadSeconds,
  median,
  probeLine,
  rpcOver,
  spawnServe,
  speedProbe,
  streamPrompt,
} from "./common.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const HUB_ONLY = process.env.BENCH_HUB_ONLY === "1"; // the hub's runs alone (comparing builds)
const COUNTS = process.env.BENCH_CLIENTS
  ? [Number(process.env.BENCH_CLIENTS)]
  : QUICK
    ? [20]
    : [100, 300];
const CLIENTS = Math.max(...COUNTS); // the hub's connection limit
const updatesFor = (clients) =>
  Number(
    process.env.BENCH_UPDATES ?? (QUICK ? 500 : clients >= 300 ? 1000 : 2000),
  );
const TURNS = envCount("BENCH_TURNS", 1);
const RELAY_UPDATES = Number(process.env.BENCH_RELAY_UPDATES ?? 20000);
// Rounds of each count (hub, floor, anchor back to back each round): the ratios are the median
// of the rounds' own, so that the machine's drift falls on both sides of each.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK || HUB_ONLY ? 1 : 3));
const ANCHOR = fileURLToPath(new URL("./ws-anchor.mjs", import.meta.url));
const PIPE = fileURLToPath(new URL("./ws-pipe.mjs", import.meta.url));
const STORE = fileURLToPath(new URL("./ws-store.mjs", import.meta.url));
// The bare relays each count runs beside the hub, in this order (name, script, environment);
// BENCH_STORE_LEDGER=1 adds the storing floor on acphub's own ledger, with an agent per
// connection (`ledger`) and with one agent for all, the hub's input (`ledger1`).
const RELAYS = [
  ["floor", PIPE, {}],
  ["store", STORE, {}],
  ...(process.env.BENCH_STORE_LEDGER === "1"
    ? [
        ["ledger", STORE, { BENCH_STORE: "ledger" }],
        ["ledger1", STORE, { BENCH_STORE: "ledger", BENCH_STORE_AGENT: "one" }],
      ]
    : []),
  ["anchor", ANCHOR, {}],
];

function home() {
  const dir = benchDir("acphub-bench-serve-");
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents: {
        mock: { command: process.execPath, args: [CLI, "mock-agent"] },
      },
      ledger: { maxEventsPerSession: 100000, maxSessions: 100000 },
      limits: { sessionsPerMinute: 100000 },
      serve: {
        // The first run's sockets may still be closing when the second's open.
        maxConnections: 2 * CLIENTS + 16,
        maxUnauthenticatedPerAddress: 2 * CLIENTS + 16,
        maxFailedAuth: 1000,
      },
    }),
  );
  return dir;
}

async function startHub(dir) {
  const hub = await spawnServe(dir);
  const stop = async () => {
    hub.child.kill("SIGTERM");
    await new Promise((r) => hub.child.once("exit", r));
  };
  const url = `${hub.url.replace(/^http/, "ws")}/acp`;
  return { url, pid: hub.pid, token: hub.token, stop };
}

// A bare ws relay (one of RELAYS), in its own process like the hub.
async function startRelay(script, env) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve) =>
    createInterface({ input: child.stdout }).once("line", resolve),
  );
  const stop = async () => {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  };
  return { ...JSON.parse(line), stop };
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

// [user, system] CPU seconds of one process so far (its children not counted).

const load = () => `load ${loadavg()[0].toFixed(1)}`;

// One raw WebSocket client with its session open; `prompt()` runs its turns (TURNS, the first of
// `first` updates) and times its first update.
async function openClient(server, updates, first = updates) {
  const ws = new WebSocket(server.url, {
    headers: server.token ? { Authorization: `Bearer ${server.token}` } : {},
    maxPayload: 256 * 1024 * 1024,
  });
  let count = 0;
  let firstAt;
  const ask = rpcOver(ws, (m) => {
    if (m.method !== "session/update") return;
    count += 1;
    firstAt ??= performance.now();
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await ask("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const prompt = async () => {
    const sent = performance.now();
    for (let turn = 0; turn < TURNS; turn++) {
      const text = streamPrompt(turn === 0 ? first : updates);
      const result = await ask("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      if (result.stopReason !== "end_turn")
        throw new Error(`stopReason ${result.stopReason}`);
    }
    ws.close();
    return { firstMs: firstAt - sent, updates: count };
  };
  return prompt;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))
  ];
}

// Opens every client's session, then all prompt at once; CPU counted over the turns only.
async function loadRun(server, clients, updates) {
  const opened = await Promise.allSettled(
    Array.from({ length: clients }, (_, i) =>
      openClient(
        server,
        updates,
        TURNS > 1 ? Math.ceil((updates * (i + 1)) / clients) : updates,
      ),
    ),
  );
  const prompts = opened.filter((r) => r.status === "fulfilled");
  let peakRss = 0;
  const sampler = setInterval(
    () => (peakRss = Math.max(peakRss, rssMb(server.pid))),
    50,
  );
  const cpu = cpuSeconds(server.pid);
  const main = mainThreadSeconds(server.pid);
  const io = syscalls(server.pid);
  const woken = wakeUps(server.pid);
  const started = performance.now();
  const results = await Promise.allSettled(prompts.map((r) => r.value()));
  const seconds = (performance.now() - started) / 1000;
  const [user, system] = cpuSeconds(server.pid).map((t, i) => t - cpu[i]);
  const [reads, writes] = syscalls(server.pid).map((n, i) => n - io[i]);
  const woke = wakeUps(server.pid) - woken;
  const others = user + system - (mainThreadSeconds(server.pid) - main);
  clearInterval(sampler);
  const ok = results
    .filter((r) => r.status === "fulfilled")
    .map((r) => r.value);
  const errors = [...opened, ...results].filter((r) => r.status === "rejected");
  const total = ok.reduce((n, r) => n + r.updates, 0);
  const firsts = ok.map((r) => r.firstMs);
  return {
    errors,
    total,
    seconds,
    cpuUs: ((user + system) * 1e6) / Math.max(1, total),
    systemUs: (system * 1e6) / Math.max(1, total),
    othersUs: (others * 1e6) / Math.max(1, total),
    reads: reads / Math.max(1, total),
    writes: writes / Math.max(1, total),
    wakeUps: woke / Math.max(1, total),
    p50: median(firsts),
    p99: percentile(firsts, 99),
    peakRss,
    load: load(),
  };
}

const turnsText = (updates) =>
  TURNS > 1
    ? `${TURNS} turns of ${updates} updates back to back (the first cut short: the turns end at different times)`
    : `1 turn of ${updates} updates`;

const cpuOf = (r) =>
  `${r.cpuUs.toFixed(1).padStart(5)} µs/update (system ${r.systemUs.toFixed(1)}, other threads ${r.othersUs.toFixed(1)}; read/write calls ${r.reads.toFixed(2)}/${r.writes.toFixed(2)}, main thread woken ${r.wakeUps.toFixed(2)})`;

// How often a process's main thread has slept and been woken so far (its voluntary context
// switches: each wait for input that found none).
function wakeUps(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
}

// A process's read and write system calls so far (/proc/PID/io: every thread's, files, pipes
// and sockets alike).
function syscalls(pid) {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  return [/syscr: (\d+)/, /syscw: (\d+)/].map((re) => Number(re.exec(io)[1]));
}

// A count run twice in one process: the first run's figures, and the second's as `again`.
// The first run's compactions end before the second begins (a SQLite hub runs them at its
// spool's next fold, within a second: they would land in the second run's figures).
async function runTwice(server, clients, updates) {
  const first = await loadRun(server, clients, updates);
  await compactedCpu(server.pid);
  return { ...first, again: await loadRun(server, clients, updates) };
}

// One count's three relays side by side: errors, throughput, CPU per update, first update (each
// a median of the rounds), and the ratios: each round's hub over the floor and anchor measured
// beside it, then their median (the machine's drift between rounds falls on both sides).
function printRuns(clients, updates, rounds) {
  const loads = (name) => rounds.map((r) => r[name].load.slice(5)).join(", ");
  console.log(
    `serve: ${clients} WebSocket clients × 1 session × ${turnsText(updates)}, ${rounds.length} round${rounds.length > 1 ? "s" : ""} (load: ${["hub", ...RELAYS.map(([name]) => name)].map((name) => `${name} ${loads(name)}`).join("; ")})`,
  );
  for (const name of ["hub", ...RELAYS.map(([relay]) => relay)]) {
    const runs = rounds.map((r) => r[name]);
    const r = medianRun(runs);
    const errors = runs.flatMap((x) => [...x.errors, ...x.again.errors]);
    const each =
      runs.length > 1
        ? ` (rounds: ${runs.map((x) => `${x.cpuUs.toFixed(1)}/${x.again.cpuUs.toFixed(1)}`).join(", ")})`
        : "";
    console.log(
      `  ${name.padEnd(6)}: CPU ${cpuOf(r)}, again ${cpuOf(r.again)}${each}, ${(r.total / r.seconds).toFixed(0)} updates/s, first update p50 ${r.p50.toFixed(0)} ms p99 ${r.p99.toFixed(0)} ms, errors ${errors.length}${errors.length ? ` (first: ${errors[0].reason.message})` : ""}, ${r.total} updates in ${r.seconds.toFixed(1)} s, peak RSS ${Math.max(...runs.map((x) => Math.max(x.peakRss, x.again.peakRss))).toFixed(0)} MB`,
    );
  }
  const ratio = (a, b) => {
    const first = rounds.map((r) => r[a].cpuUs / r[b].cpuUs);
    const again = rounds.map((r) => r[a].again.cpuUs / r[b].again.cpuUs);
    const each =
      rounds.length > 1
        ? ` [${first.map((x, i) => `${x.toFixed(2)}/${again[i].toFixed(2)}`).join(", ")}]`
        : "";
    return `${median(first).toFixed(2)} (again ${median(again).toFixed(2)})${each}`;
  };
  console.log(
    `  CPU per update${rounds.length > 1 ? ", median of the rounds' ratios" : ""}: hub ÷ floor ${ratio("hub", "floor")}, hub ÷ store ${ratio("hub", "store")}, store ÷ floor ${ratio("store", "floor")},${RELAYS.some(([name]) => name === "ledger") ? ` hub ÷ ledger ${ratio("hub", "ledger")}, ledger ÷ floor ${ratio("ledger", "floor")}, hub ÷ ledger1 ${ratio("hub", "ledger1")}, ledger1 ÷ anchor ${ratio("ledger1", "anchor")},` : ""} hub ÷ anchor ${ratio("hub", "anchor")}, anchor ÷ floor ${ratio("anchor", "floor")}`,
  );
}

// The rounds' runs as one: each figure the median of the rounds' (first and again apart).
function medianRun(runs) {
  const of = (list) => {
    const out = {};
    for (const key of [
      "cpuUs",
      "systemUs",
      "othersUs",
      "reads",
      "writes",
      "wakeUps",
      "p50",
      "p99",
      "total",
      "seconds",
    ])
      out[key] = median(list.map((x) => x[key]));
    return out;
  };
  return { ...of(runs), again: of(runs.map((x) => x.again)) };
}

// Updates per second for one client and one long turn over WebSocket.
async function wsRate() {
  const hub = await startHub(home());
  const prompt = await openClient(hub, RELAY_UPDATES);
  const started = performance.now();
  const { updates } = await prompt();
  const rate = updates / ((performance.now() - started) / 1000);
  await hub.stop();
  return rate;
}

// The same turn through `acphub acp` over stdio, raw frames counted.
async function stdioRate() {
  const dir = home();
  const child = spawn(process.execPath, [HUB_CLI, "acp"], {
    env: { ...process.env, ACPHUB_HOME: dir },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = new Map();
  let updates = 0;
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on(
    "line",
    (line) => {
      const m = JSON.parse(line);
      if (m.method === "session/update") updates += 1;
      else if (m.id !== undefined && waiting.has(m.id))
        waiting.get(m.id)(m.result);
    },
  );
  let id = 0;
  const ask = (method, params) =>
    new Promise((resolve) => {
      const my = ++id;
      waiting.set(my, resolve);
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: my, method, params })}\n`,
      );
    });
  await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await ask("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const started = performance.now();
  await ask("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: streamPrompt(RELAY_UPDATES) }],
  });
  const rate = updates / ((performance.now() - started) / 1000);
  child.kill("SIGTERM");
  return rate;
}

// Each count: the hub, then each bare relay (RELAYS), back to back, ROUNDS times over.
const probed = speedProbe();
const results = new Map();
for (const clients of COUNTS) {
  const updates = updatesFor(clients);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const hub = await startHub(home());
    const hubRun = await runTwice(hub, clients, updates);
    await hub.stop();
    if (HUB_ONLY) {
      console.log(
        `serve: ${clients} × ${turnsText(updates)}, hub only (${hubRun.load}): CPU ${cpuOf(hubRun)}, again ${cpuOf(hubRun.again)}, errors ${hubRun.errors.length + hubRun.again.errors.length}`,
      );
      continue;
    }
    const round = { hub: hubRun };
    for (const [name, script, env] of RELAYS) {
      const relay = await startRelay(script, env);
      round[name] = await runTwice(relay, clients, updates);
      await relay.stop();
    }
    rounds.push(round);
  }
  if (HUB_ONLY) continue;
  results.set(clients, rounds);
  printRuns(clients, updates, rounds);
}
if (results.has(100) && results.has(300)) {
  const [a, b] = [results.get(100), results.get(300)];
  const grew = (name) => {
    const of = (rounds, pick) => median(rounds.map((r) => pick(r[name]).cpuUs));
    const ratio = (pick) => (of(b, pick) / of(a, pick)).toFixed(2);
    return `${ratio((r) => r)} (again ${ratio((r) => r.again)})`;
  };
  console.log(
    `300 ÷ 100 clients, CPU per update${ROUNDS > 1 ? " (medians of the rounds)" : ""}: ${["hub", ...RELAYS.map(([name]) => name)].map((name) => `${name} ${grew(name)}`).join(", ")}`,
  );
}
if (!QUICK && !HUB_ONLY && process.env.BENCH_RELAY !== "0") {
  const ws = await wsRate();
  const stdio = await stdioRate();
  console.log(
    `relay, one turn of ${RELAY_UPDATES} updates: WebSocket ${ws.toFixed(0)}/s, stdio ${stdio.toFixed(0)}/s, ratio ws/stdio ${(ws / stdio).toFixed(2)} (${load()})`,
  );
}
console.log(probeLine(probed, speedProbe()));
process.exit(0);
