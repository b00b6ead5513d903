// acphub serve under load: CLIENTS concurrent WebSocket clients, each one session and one turn
// of UPDATES updates against the mock agent: errors, time to first update (p50/p99), updates/s,
// hub RSS per live session; then the relay rate of one client over WebSocket versus `acphub
// acp` over stdio, as a ratio. Prints figures; never part of the test run.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import WebSocket from "ws";
import { CLI, median, rpcOver, spawnServe, streamPrompt } from "./common.mjs";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 500);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 200);
const RELAY_UPDATES = Number(process.env.BENCH_RELAY_UPDATES ?? 20000);

function home() {
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-serve-"));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents: {
        mock: { command: process.execPath, args: [CLI, "mock-agent"] },
      },
      ledger: { maxEventsPerSession: 100000, maxSessions: 100000 },
      serve: { maxConnections: CLIENTS + 16, maxFailedAuth: 1000 },
    }),
  );
  return dir;
}

async function startHub(dir) {
  const hub = await spawnServe(dir);
  return { ...hub, url: `${hub.url.replace(/^http/, "ws")}/acp` };
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

// One raw WebSocket client: initialize, session/new, one prompt; times its first update.
async function oneClient(hub, updates, onLive) {
  const ws = new WebSocket(hub.url, {
    headers: { Authorization: `Bearer ${hub.token}` },
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
  onLive();
  const sent = performance.now();
  const result = await ask("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: streamPrompt(updates) }],
  });
  ws.close();
  if (result.stopReason !== "end_turn")
    throw new Error(`stopReason ${result.stopReason}`);
  return { firstMs: firstAt - sent, updates: count };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))
  ];
}

async function loadRun() {
  const dir = home();
  const hub = await startHub(dir);
  let live = 0;
  let peakRss = 0;
  const sampler = setInterval(
    () => (peakRss = Math.max(peakRss, rssMb(hub.pid))),
    50,
  );
  const idleRss = rssMb(hub.pid);
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: CLIENTS }, () =>
      oneClient(hub, UPDATES, () => (live += 1)),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const ok = results
    .filter((r) => r.status === "fulfilled")
    .map((r) => r.value);
  const errors = results.filter((r) => r.status === "rejected");
  const total = ok.reduce((n, r) => n + r.updates, 0);
  const firsts = ok.map((r) => r.firstMs);
  console.log(
    `serve: ${CLIENTS} WebSocket clients × 1 session × 1 turn of ${UPDATES} updates`,
  );
  console.log(
    `  errors: ${errors.length}${errors.length ? ` (first: ${errors[0].reason.message})` : ""}`,
  );
  console.log(
    `  time to first update: p50 ${median(firsts).toFixed(0)} ms, p99 ${percentile(firsts, 99).toFixed(0)} ms`,
  );
  console.log(
    `  updates relayed: ${total} in ${seconds.toFixed(1)} s = ${(total / seconds).toFixed(0)} updates/s`,
  );
  console.log(
    `  hub RSS: idle ${idleRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB, ${(((peakRss - idleRss) * 1024) / Math.max(1, live)).toFixed(0)} KB per live session`,
  );
  hub.child.kill("SIGTERM");
  await new Promise((r) => hub.child.once("exit", r));
}

// Updates per second for one client and one long turn over WebSocket.
async function wsRate() {
  const dir = home();
  const hub = await startHub(dir);
  const started = performance.now();
  const { updates } = await oneClient(hub, RELAY_UPDATES, () => undefined);
  const rate = updates / ((performance.now() - started) / 1000);
  hub.child.kill("SIGTERM");
  await new Promise((r) => hub.child.once("exit", r));
  return rate;
}

// The same turn through `acphub acp` over stdio, raw frames counted.
async function stdioRate() {
  const dir = home();
  const child = spawn(process.execPath, [CLI, "acp"], {
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

await loadRun();
const ws = await wsRate();
const stdio = await stdioRate();
console.log(
  `relay, one turn of ${RELAY_UPDATES} updates: WebSocket ${ws.toFixed(0)}/s, stdio ${stdio.toFixed(0)}/s, ratio ws/stdio ${(ws / stdio).toFixed(2)}`,
);
process.exit(0);
