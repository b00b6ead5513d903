// Tracing's overhead: acphub acp's CPU per relayed update with tracing off and with it on
// (spans sent over OTLP/HTTP to a local sink that answers 200), rounds interleaved so that both
// see the same machine load. Prints figures; never part of the test run.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { client } from "@agentclientprotocol/sdk";
import { ndjsonStream } from "../dist/protocol/ndjson.js";
import { benchDir, CLI, cpuSeconds, median, streamPrompt } from "./common.mjs";

const UPDATES = Number(process.env.BENCH_UPDATES ?? 30000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

// An ACPHUB_HOME with the mock agent.
function home() {
  const dir = benchDir("acphub-bench-");
  const agents = {
    mock: { command: process.execPath, args: [CLI, "mock-agent"] },
  };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ defaultAgent: "mock", agents }),
  );
  return dir;
}

// user+system CPU seconds of a process so far.
const cpuTotal = (pid) => cpuSeconds(pid).reduce((a, b) => a + b);

// Node's options for one of the two processes: with BENCH_PROF_DIR, a CPU profile of each
// (written at exit into BENCH_PROF_DIR/off and BENCH_PROF_DIR/on; bench/profile-shares.mjs reads it).
const nodeArgs = (label) =>
  process.env.BENCH_PROF_DIR
    ? [
        "--cpu-prof",
        `--cpu-prof-dir=${join(process.env.BENCH_PROF_DIR, label)}`,
      ]
    : [];

// acphub acp with one session open; counts the updates relayed.
async function opened(env, label) {
  const child = spawn(process.execPath, [...nodeArgs(label), CLI, "acp"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { PATH: process.env.PATH ?? "", ACPHUB_HOME: home(), ...env },
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
  const { agent } = client({ name: "bench" }).connect(stream);
  await agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const { sessionId } = await agent.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [],
  });
  return { agent, child, counter, sessionId, cpu: [] };
}

// One turn of UPDATES updates; the CPU acphub spent on it, per update (µs).
async function turn(e) {
  e.counter.updates = 0;
  const before = cpuTotal(e.child.pid);
  await e.agent.request("session/prompt", {
    sessionId: e.sessionId,
    prompt: [{ type: "text", text: streamPrompt(UPDATES) }],
  });
  if (e.counter.updates !== UPDATES)
    throw new Error(`saw ${e.counter.updates} updates`);
  e.cpu.push(((cpuTotal(e.child.pid) - before) * 1e6) / UPDATES);
}

let posts = 0;
let spans = 0;
const sink = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    posts++;
    spans += body.split('"spanId"').length - 1;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((r) => sink.listen(0, "127.0.0.1", r));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

const off = await opened({}, "off");
// BENCH_CONTROL=1: the second process is told to trace but OTEL_SDK_DISABLED turns it off, so
// the two differ in nothing: the "overhead" printed is the bench's own bias and noise.
const on = await opened(
  {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: "200",
    ...(process.env.BENCH_CONTROL ? { OTEL_SDK_DISABLED: "true" } : {}),
  },
  "on",
);
await turn(off); // warm-up rounds, not counted
await turn(on);
off.cpu.length = 0;
on.cpu.length = 0;
for (let round = 0; round < ROUNDS; round++) {
  await turn(off);
  await turn(on);
}
const exited = (e) => new Promise((r) => e.child.once("exit", r));
const gone = [exited(off), exited(on)];
off.child.kill();
on.child.kill();
await Promise.all(gone); // the traced one sends its last spans first
sink.close();
const a = median(off.cpu);
const b = median(on.cpu);
console.log(
  `tracing overhead (${ROUNDS} rounds of ${UPDATES} updates, medians; load ${loadavg()[0].toFixed(1)})`,
);
console.log(
  `  acphub CPU per relayed update, tracing off : ${a.toFixed(1)} µs`,
);
console.log(
  `  acphub CPU per relayed update, tracing on  : ${b.toFixed(1)} µs (${spans} spans in ${posts} OTLP posts)`,
);
console.log(
  `  overhead                                   : ${(((b - a) / a) * 100).toFixed(1)} %`,
);
