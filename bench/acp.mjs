// acphub acp in front of the mock agent: update relay throughput (direct versus through
// acphub, as a ratio in one run), replay time of a 5,000-event session, and acphub's memory
// per idle session. Prints figures; never part of the test run.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client } from "@agentclientprotocol/sdk";
import { ndjsonStream } from "../dist/protocol/ndjson.js";
import { CLI, median, streamPrompt } from "./common.mjs";

const UPDATES = Number(process.env.BENCH_UPDATES ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function home() {
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-"));
  const agents = {
    mock: { command: process.execPath, args: [CLI, "mock-agent"] },
  };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents,
      ledger: { maxEventsPerSession: 100000, maxBytesPerSession: 268435456 },
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
  const counter = { updates: 0 };
  const stream = ndjsonStream(child.stdout, child.stdin, {
    maxLineBytes: 64 * 1024 * 1024,
    intercept: (m) => {
      if (!("method" in m) || "id" in m) return false;
      if (m.method === "session/update") counter.updates++;
      return true;
    },
  });
  const connection = client({ name: "bench" }).connect(stream);
  return { agent: connection.agent, child, counter };
}

async function relayRate(argv, env) {
  const e = editor(argv, env);
  await e.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const { sessionId } = await e.agent.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    e.counter.updates = 0;
    const start = performance.now();
    await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: streamPrompt(UPDATES) }],
    });
    if (e.counter.updates !== UPDATES)
      throw new Error(`saw ${e.counter.updates} updates`);
    times.push(performance.now() - start);
  }
  e.child.kill();
  return (UPDATES / median(times)) * 1000;
}

async function replayTime(events) {
  const dir = home();
  const env = { ACPHUB_HOME: dir };
  const first = editor([CLI, "acp"], env);
  await first.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const { sessionId } = await first.agent.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: streamPrompt(events - 2) }],
  });
  first.child.kill("SIGKILL");
  const second = editor([CLI, "acp"], env);
  await second.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const start = performance.now();
  await second.agent.request("session/load", {
    sessionId,
    cwd: process.cwd(),
    mcpServers: [],
  });
  const ms = performance.now() - start;
  second.child.kill();
  return { ms, replayed: second.counter.updates };
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

async function memoryPerSession(count) {
  const e = editor([CLI, "acp"], { ACPHUB_HOME: home() });
  await e.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const open = () =>
    e.agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  for (let i = 0; i < 20; i++) await open(); // warm up allocations
  global.gc?.();
  await new Promise((r) => setTimeout(r, 300));
  const before = rssKb(e.child.pid);
  for (let i = 0; i < count; i++) await open();
  await new Promise((r) => setTimeout(r, 300));
  const after = rssKb(e.child.pid);
  e.child.kill();
  return ((after - before) * 1024) / count;
}

const direct = await relayRate([CLI, "mock-agent"]);
const hub = await relayRate([CLI, "acp"], { ACPHUB_HOME: home() });
console.log(
  `update relay, mock agent → editor, ${UPDATES} updates per turn, median of ${ROUNDS}`,
);
console.log(
  `  direct             : ${Math.round(direct).toLocaleString("en")} updates/s`,
);
console.log(
  `  through acphub acp : ${Math.round(hub).toLocaleString("en")} updates/s (each appended to the ledger first)`,
);
console.log(`  ratio hub/direct   : ${(hub / direct).toFixed(2)}`);
const replay = await replayTime(5000);
console.log(
  `replay of a 5,000-event session after a restart: ${replay.ms.toFixed(0)} ms (${replay.replayed} updates, load answered)`,
);
const perSession = await memoryPerSession(
  Number(process.env.BENCH_SESSIONS ?? 200),
);
console.log(
  `acphub acp memory per idle session: ${(perSession / 1024).toFixed(1)} KiB (RSS growth over ${process.env.BENCH_SESSIONS ?? 200} sessions, acphub only)`,
);
