// Shared bits of the benchmarks: the mock agent launch and small statistics.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(
  new URL("../dist/cli/main.js", import.meta.url),
);

/** The acphub build whose `acp`/`serve` a bench measures: ACPHUB_CLI (say main's dist) or this one.
 *  The mock agent and the clients always come from this build, so both runs drive the same load. */
export const HUB_CLI = process.env.ACPHUB_CLI ?? CLI;

export function mockLaunch(flags = []) {
  return {
    name: "mock",
    command: process.execPath,
    args: [CLI, "mock-agent", ...flags],
    env: { PATH: process.env.PATH ?? "" },
    source: "bundled",
    description: "bench",
  };
}

// The benches' temporary folders (homes whose ledgers grow to ~30 MB), removed at the exit.
const madeDirs = [];
process.once("exit", () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * How fast the machine runs now: a fixed loop (3·10⁸ additions) in a fresh node, in ms (lower is
 * faster). The same build's figures moved twofold within an hour on this machine (docs/
 * benchmarks.md, seventeenth round): a figure compares only with one measured at a like probe.
 */
export function speedProbe() {
  const loop =
    "const t=process.hrtime.bigint();let x=0;for(let i=0;i<3e8;i++)x+=i%7;" +
    "console.log(Number(process.hrtime.bigint()-t)/1e6)";
  const { stdout } = spawnSync(process.execPath, ["-e", loop], {
    encoding: "utf8",
  });
  return Math.round(Number(stdout));
}

/** The probe's line for a bench's output, from a probe taken before the runs and one after. */
export const probeLine = (before, after) =>
  `speed probe (a fixed loop in a fresh node; lower is faster): ${before} ms before, ${after} ms after`;

/** A count from the environment: a whole number of at least 1, or the run stops saying which. */
export function envCount(name, fallback) {
  const text = process.env[name];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(
      `${name} must be a whole number of at least 1, not ${text}`,
    );
  return value;
}

/** A new folder under the OS temp dir, removed when the bench exits. */
export function benchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** CPU seconds of a process so far, [user, system] (/proc/PID/stat, USER_HZ ticks). */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .split(") ")[1]
    .split(" ");
  return [Number(fields[11]) / 100, Number(fields[12]) / 100];
}

/** A process's CPU seconds (user + system) once it has gone quiet: read until three reads 50 ms
 *  apart agree (5 s at most). */
export async function settledCpu(pid) {
  const total = () => cpuSeconds(pid).reduce((a, b) => a + b);
  let last = total();
  for (let same = 0, i = 0; same < 3 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = total();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** The CPU of a hub whose turns have ended, once their compactions have run: on SQLite a
 *  finished turn's compaction waits for the spool's next fold (within FOLD_MS, a second), so
 *  the process is quiet before it. */
export async function compactedCpu(pid) {
  await new Promise((r) => setTimeout(r, 1200));
  return settledCpu(pid);
}

/** CPU seconds (user + system) of a process's main thread so far: the rest of its CPU is its
 *  other threads' (V8 compiling optimized code and collecting garbage beside it, libuv's pool). */
export function mainThreadSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")
    .split(") ")[1]
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ ticks
}

/** Milliseconds a process's main thread has spent runnable but waiting for a CPU (the run queue,
 *  /proc/PID/schedstat), or NaN where the kernel does not keep the figure. */
export function runQueueMs(pid) {
  try {
    const [, waitNs] = readFileSync(
      `/proc/${pid}/task/${pid}/schedstat`,
      "utf8",
    )
      .split(" ")
      .map(Number);
    return waitNs / 1e6;
  } catch {
    return NaN;
  }
}

/** The pids of a process's children (its agent's, for acphub). */
export function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The stored text of a reply's `n`th chunk, as the ledger benches append it. */
export const replyChunk = (n) =>
  JSON.stringify({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `chunk ${n} of the reply, a few words ` },
    },
  });

/** Creates a bench session (one agent, one folder) for each of `ids` in a ledger. */
export async function createBenchSessions(ledger, ids) {
  for (const id of ids) {
    const now = Date.now();
    await ledger.createSession({
      ...{ id, agent: "bench", cwd: "/w", title: null, state: "active" },
      ...{ createdAt: now, updatedAt: now, agentSessionId: "a", request: {} },
    });
  }
}

/** Appends `updates` reply chunks to each of the sessions `ids`, `perTick` per session per tick
 *  (a tick between): the appends' promises. */
export async function streamReplies(ledger, ids, updates, perTick) {
  const appends = [];
  for (let k = 0; k < updates; k += perTick) {
    for (const id of ids)
      for (let n = k; n < Math.min(updates, k + perTick); n++)
        appends.push(ledger.append(id, "update", replyChunk(n)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return appends;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A prompt that makes the mock agent stream `count` one-character chunks. */
export function streamPrompt(count) {
  return JSON.stringify({
    steps: [{ text: "x".repeat(count), chunks: count }],
  });
}

// A minimal JSON-RPC client over a raw WebSocket: `ask(method, params)` resolves with the
// result; every other message (notifications) goes to onOther.
export function rpcOver(ws, onOther = () => {}) {
  const waiting = new Map();
  let id = 0;
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString());
    if (m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    } else onOther(m);
  });
  return (method, params) =>
    new Promise((resolve, reject) => {
      const my = ++id;
      waiting.set(my, (m) =>
        m.error ? reject(new Error(m.error.message)) : resolve(m.result),
      );
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }));
    });
}

// BENCH_SECRETS=N gives the hub N secret-looking variables (API keys it masks in every update).
function benchSecrets() {
  const n = Number(process.env.BENCH_SECRETS ?? 0);
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `BENCH_${i}_API_KEY`,
      `sk-bench-${i}-${randomBytes(9).toString("base64url")}`,
    ]),
  );
}

// Starts `acphub serve --port 0 --json` with ACPHUB_HOME=dir; its http URL, pid and token.
// BENCH_HUB_NODE_ARGS adds node flags to the hub alone (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
export async function spawnServe(dir) {
  const nodeArgs = (process.env.BENCH_HUB_NODE_ARGS ?? "").split(" ");
  const child = spawn(
    process.execPath,
    [...nodeArgs.filter(Boolean), HUB_CLI, "serve", "--port", "0", "--json"],
    {
      env: { ...process.env, ...benchSecrets(), ACPHUB_HOME: dir },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise((resolve) =>
    createInterface({ input: child.stdout }).once("line", resolve),
  );
  const { url, pid } = JSON.parse(line);
  const token = readFileSync(join(dir, "serve-token"), "utf8").trim();
  return { child, url, pid, token };
}
