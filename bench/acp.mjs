// acphub acp in front of the mock agent, with the SQLite ledger and with PostgreSQL: update relay
// throughput (direct versus through acphub, as a ratio in one run), acphub's CPU per relayed
// update, replay of a 5,000-event session after a restart (minus the same client receiving the
// same updates from a raw writer), the events stored for a 1,000-chunk reply, and memory per idle
// session. Prints figures; never part of the test run. BENCH_PG_URL uses an existing server.
// Two CPU figures: "per relayed update" counts the acphub process over the turns' requests only
// (warm process; compaction and the turn's close run after the answer, before the next direct
// round, and are not counted), "end to end" is a fresh process's CPU once a turn of UPDATES is
// over and its compaction done (on SQLite it waits for the spool's next fold, within a second),
// minus the same for a 1-update turn (start-up, initialize and
// session/new cancel out; JIT warm-up, garbage collection, compaction and the close count).
// The relay also prints how long the agent waited for a CPU, alone and behind acphub: on two
// cores the agent, acphub, its V8 threads, PostgreSQL's server and the editor share them, and
// the agent's waits are what the hub's turn loses against the direct one.
// BENCH_PARTS=relay,e2e,replay,stored,memory picks parts; ACPHUB_CLI runs another build's
// acphub (main's dist) with this build's mock agent and editor; BENCH_HUB_NODE_ARGS adds node
// flags to the acphub processes of the relay and the replay (say "--cpu-prof --cpu-prof-dir=/tmp/p").
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { client } from "@agentclientprotocol/sdk";
import { openLedgerAt } from "../dist/ledger/open.js";
import { ndjsonStream } from "../dist/protocol/ndjson.js";
import {
  benchDir,
  childPids,
  CLI,
  compactedCpu,
  cpuSeconds,
  HUB_CLI,
  mainThreadSeconds,
  median,
  probeLine,
  runQueueMs,
  settledCpu,
  speedProbe,
  streamPrompt,
} from "./common.mjs";
import { benchPostgres } from "./pg-server.mjs";

const UPDATES = Number(process.env.BENCH_UPDATES ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RAW_WRITER = fileURLToPath(new URL("./raw-writer.mjs", import.meta.url));
const PARTS = new Set(
  (process.env.BENCH_PARTS ?? "relay,e2e,replay,stored,memory").split(","),
);
const HUB_ARGS = (process.env.BENCH_HUB_NODE_ARGS ?? "")
  .split(" ")
  .filter(Boolean);
const ACP = [...HUB_ARGS, HUB_CLI, "acp"];

function home() {
  const dir = benchDir("acphub-bench-");
  const agents = {
    mock: { command: process.execPath, args: [CLI, "mock-agent"] },
  };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents,
      limits: { sessionsPerMinute: 100000 },
    }),
  );
  return dir;
}

// An editor over `argv`, counting session/update notifications off the raw stream.
function editor(argv, env = {}) {
  const child = spawn(process.execPath, argv, {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const counter = { updates: 0, frames: [] };
  const stream = ndjsonStream(child.stdout, child.stdin, {
    maxLineBytes: 64 * 1024 * 1024,
    intercept: (m) => {
      if (!("method" in m) || "id" in m) return false;
      if (m.method === "session/update") counter.updates++;
      if (counter.keep) counter.frames.push(JSON.stringify(m));
      return true;
    },
  });
  const connection = client({ name: "bench" }).connect(stream);
  return { agent: connection.agent, child, counter };
}

const INIT = { protocolVersion: 1, clientCapabilities: {} };
const NEW = () => ({ cwd: process.cwd(), mcpServers: [] });

// Stops a child and waits for its exit: an acphub still closing would write to a ledger (the
// throwaway PostgreSQL) that the next step may have stopped.
async function stopped(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once("exit", resolve));
  child.kill();
  await exit;
}

// user+system CPU seconds of a process so far.
const cpuTotal = (pid) => cpuSeconds(pid).reduce((a, b) => a + b);

// An editor with one session open, ready for turns.
async function opened(argv, env) {
  const e = editor(argv, env);
  await e.agent.request("initialize", INIT);
  const { sessionId } = await e.agent.request("session/new", NEW());
  return { ...e, sessionId, times: [], cpu: 0, waits: [0, 0] };
}

// One turn of UPDATES updates; its wall time, the process's CPU time, and the time the agent's
// and the process's main threads waited for a CPU (`agentPid`: the agent's process) are added up.
async function turn(e, agentPid) {
  e.counter.updates = 0;
  const cpu = cpuTotal(e.child.pid);
  const waited = () => [runQueueMs(agentPid), runQueueMs(e.child.pid)];
  const before = waited();
  const start = performance.now();
  await e.agent.request("session/prompt", {
    sessionId: e.sessionId,
    prompt: [{ type: "text", text: streamPrompt(UPDATES) }],
  });
  e.times.push(performance.now() - start);
  e.cpu += cpuTotal(e.child.pid) - cpu;
  waited().forEach((ms, i) => (e.waits[i] += ms - before[i]));
  if (e.counter.updates !== UPDATES)
    throw new Error(`saw ${e.counter.updates} updates`);
}

// Direct and through acphub, rounds interleaved so that both see the same machine load. After
// each hub turn, acphub's compaction and the turn's close finish before the next direct round
// (they used to run during it, slowing the direct turn by what a build spends after a turn).
async function relayRates(env) {
  const direct = await opened([CLI, "mock-agent"]);
  const hub = await opened(ACP, env);
  const agentPid = childPids(hub.child.pid)[0];
  for (let round = 0; round < ROUNDS; round++) {
    await turn(direct, direct.child.pid);
    await turn(hub, agentPid);
    await compactedCpu(hub.child.pid);
  }
  await Promise.all([stopped(direct.child), stopped(hub.child)]);
  const rate = (e) => (UPDATES / median(e.times)) * 1000;
  return {
    direct: rate(direct),
    hub: rate(hub),
    cpuUs: (hub.cpu * 1e6) / (UPDATES * ROUNDS),
    // Per turn: the agent waiting for a CPU alone and behind acphub, and acphub's main thread.
    waits: [direct.waits[0], ...hub.waits].map((ms) => ms / ROUNDS),
  };
}

// A fresh acphub's whole CPU after one turn of `count` updates has ended and been compacted, and
// its other threads' part (the process's CPU less its main thread's).
async function freshTurnCpu(env, count) {
  const e = await opened(ACP, env);
  await settledCpu(e.child.pid);
  await e.agent.request("session/prompt", {
    sessionId: e.sessionId,
    prompt: [{ type: "text", text: streamPrompt(count) }],
  });
  const cpu = await compactedCpu(e.child.pid);
  const others = cpu - mainThreadSeconds(e.child.pid);
  e.child.stdin.end(); // a clean exit: its agent is shut down, not orphaned
  await new Promise((r) => e.child.once("exit", r));
  return { cpu, others };
}

// End to end: (CPU after an UPDATES turn − CPU after a 1-update turn) ÷ (UPDATES − 1), medians;
// the same for the other threads' part.
async function endToEndCpu(env) {
  const big = [];
  const small = [];
  for (let round = 0; round < ROUNDS; round++) {
    big.push(await freshTurnCpu(env, UPDATES));
    small.push(await freshTurnCpu(env, 1));
  }
  const per = (key) =>
    ((median(big.map((r) => r[key])) - median(small.map((r) => r[key]))) *
      1e6) /
    (UPDATES - 1);
  return { us: per("cpu"), othersUs: per("others") };
}

// Time to answer session/load of a 5,000-event session after kill -9, through a fresh acphub
// and from a raw writer sending the same frames (one write, no SDK), in alternate rounds so that
// the machine's drift falls on both: the medians of each and of the rounds' differences.
async function replayTimes(env) {
  const first = editor([HUB_CLI, "acp"], env);
  await first.agent.request("initialize", INIT);
  const { sessionId } = await first.agent.request("session/new", NEW());
  // Chunks of distinct messages, which compaction keeps apart: 5,000 events to replay.
  const updates = Array.from({ length: 4999 }, (_, i) => ({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `part ${i} ` },
      messageId: `m${i}`,
    },
  }));
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: JSON.stringify({ steps: updates }) }],
  });
  first.child.kill("SIGKILL");
  await new Promise((resolve) => first.child.once("exit", resolve));
  // A first, untimed load keeps the frames (serializing them would slow the timed client).
  const frames = (await hubLoad(env, sessionId, true)).frames;
  const file = join(benchDir("acphub-raw-"), "frames.ndjson");
  writeFileSync(file, frames.map((f) => f + "\n").join(""));
  const hub = [];
  const raw = [];
  for (let round = 0; round < ROUNDS; round++) {
    hub.push((await hubLoad(env, sessionId, false)).ms);
    raw.push(await rawLoad(file, frames.length));
  }
  return {
    frames,
    ms: median(hub),
    raw: median(raw),
    adds: median(hub.map((ms, i) => ms - raw[i])),
  };
}

// One session/load through a fresh acphub: its time, and the frames before the answer (`keep`).
async function hubLoad(env, sessionId, keep) {
  const second = editor(ACP, env);
  await second.agent.request("initialize", INIT);
  second.counter.keep = keep;
  const start = performance.now();
  await second.agent.request("session/load", { sessionId, ...NEW() });
  const ms = performance.now() - start;
  second.child.stdin.end(); // a clean exit: its agent is shut down, not orphaned
  await new Promise((resolve) => second.child.once("exit", resolve));
  return { ms, frames: [...second.counter.frames] };
}

// The same client receiving the frames in `file` from the raw writer.
async function rawLoad(file, count) {
  const raw = editor([RAW_WRITER, file]);
  await raw.agent.request("initialize", INIT);
  const start = performance.now();
  await raw.agent.request("session/load", { sessionId: "s", ...NEW() });
  const ms = performance.now() - start;
  if (raw.counter.updates !== count) throw new Error("raw writer lost frames");
  raw.child.kill();
  return ms;
}

// Events kept in the ledger for a streamed reply of 1,000 chunks, once the turn is compacted.
async function storedForReply(env, where) {
  const e = editor([HUB_CLI, "acp"], env);
  await e.agent.request("initialize", INIT);
  const { sessionId } = await e.agent.request("session/new", NEW());
  await e.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: streamPrompt(1000) }],
  });
  await e.agent.request("session/list", {}); // compaction runs right after the answer
  await new Promise((r) => setTimeout(r, 500));
  await stopped(e.child);
  const ledger = await openLedgerAt(where);
  const count = (await ledger.read(sessionId)).length;
  await ledger.close();
  return count;
}

function rssKb(pid) {
  return Number(
    /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1],
  );
}

async function memoryPerSession(count, env) {
  const e = editor([HUB_CLI, "acp"], env);
  await e.agent.request("initialize", INIT);
  for (let i = 0; i < 20; i++) await e.agent.request("session/new", NEW());
  await new Promise((r) => setTimeout(r, 300));
  const before = rssKb(e.child.pid);
  for (let i = 0; i < count; i++) await e.agent.request("session/new", NEW());
  await new Promise((r) => setTimeout(r, 300));
  const after = rssKb(e.child.pid);
  await stopped(e.child);
  return ((after - before) * 1024) / count;
}

const f = (n) => Math.round(n).toLocaleString("en");
console.log(
  `update relay, mock agent → editor, ${UPDATES} updates per turn, median of ${ROUNDS} (direct and hub rounds interleaved)`,
);

async function measure(name, ledgerEnv, where) {
  console.log(`${name}:`);
  const load = () => `load ${loadavg()[0].toFixed(1)}`;
  if (PARTS.has("relay")) {
    const r = await relayRates({ ACPHUB_HOME: home(), ...ledgerEnv });
    console.log(`  direct                        : ${f(r.direct)} updates/s`);
    console.log(
      `  through acphub acp            : ${f(r.hub)} updates/s (each stored before the editor gets it)`,
    );
    console.log(
      `  ratio hub/direct              : ${(r.hub / r.direct).toFixed(2)} (${load()})`,
    );
    console.log(
      `  acphub CPU per relayed update : ${r.cpuUs.toFixed(1)} µs (user+sys of the warm acphub process during the turns' requests, /proc; compaction and the turn's close not counted; ${load()})`,
    );
    const [alone, behind, own] = r.waits.map((ms) => ms.toFixed(0));
    if (!r.waits.some(Number.isNaN))
      console.log(
        `  waiting for a CPU, per turn   : the agent ${alone} ms alone, ${behind} ms behind acphub; acphub's main thread ${own} ms (run queue, /proc/PID/schedstat: on a machine with few cores, the hub's turn is longer by what the agent waits)`,
      );
  }
  if (PARTS.has("e2e")) {
    const e2e = await endToEndCpu({ ACPHUB_HOME: home(), ...ledgerEnv });
    console.log(
      `  acphub CPU per update, end to end: ${e2e.us.toFixed(1)} µs, of it other threads ${e2e.othersUs.toFixed(1)} µs (fresh process: CPU once a ${UPDATES}-update turn is over and compacted, minus a 1-update turn's; JIT warm-up, GC, compaction and the close counted; other threads: mostly V8 compiling optimized code beside the main thread (--no-opt removes it, --single-threaded-gc does not); ${load()})`,
    );
  }
  if (PARTS.has("replay")) {
    const replayEnv = { ACPHUB_HOME: home(), ...ledgerEnv };
    const replay = await replayTimes(replayEnv);
    console.log(
      `  replay of ${replay.frames.length} updates after kill -9: ${replay.ms.toFixed(0)} ms to answer session/load; raw writer ${replay.raw.toFixed(0)} ms; acphub adds ${replay.adds.toFixed(0)} ms (median of ${ROUNDS} rounds' differences, each through a fresh acphub then from the raw writer; ${load()})`,
    );
  }
  if (PARTS.has("stored")) {
    const storeEnv = { ACPHUB_HOME: home(), ...ledgerEnv };
    const stored = await storedForReply(
      storeEnv,
      where ?? join(storeEnv.ACPHUB_HOME, "ledger.db"),
    );
    console.log(
      `  events stored for a 1,000-chunk reply (prompt and turn end included): ${stored}`,
    );
  }
  if (PARTS.has("memory")) {
    const perSession = await memoryPerSession(
      Number(process.env.BENCH_SESSIONS ?? 200),
      { ACPHUB_HOME: home(), ...ledgerEnv },
    );
    console.log(
      `  memory per idle session       : ${(perSession / 1024).toFixed(1)} KiB (RSS growth, acphub only)`,
    );
  }
}

// BENCH_LEDGER=postgres (or sqlite) measures one ledger only.
const probed = speedProbe();
const only = process.env.BENCH_LEDGER;
if (only !== "postgres") await measure("SQLite ledger", {});
const pg = only === "sqlite" ? undefined : await benchPostgres();
if (pg)
  try {
    await measure("PostgreSQL ledger", { ACPHUB_LEDGER_URL: pg.url }, pg.url);
  } finally {
    pg.stop();
  }
console.log(probeLine(probed, speedProbe()));
