// Reads a V8 .cpuprofile (`node --cpu-prof`, e.g. the hub under bench/serve.mjs with
// BENCH_HUB_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR") and prints each part of the hub's path
// with its share of the samples: each sample counts for the first part whose pattern names a
// frame of its stack, from the leaf up. The profile samples wall time while the process runs,
// so a call blocked in I/O (a SQLite commit writing the WAL) counts at its wall time, not its CPU.
// Usage: node bench/profile-shares.mjs FILE.cpuprofile
import { readFileSync } from "node:fs";

const PARTS = [
  ["idle", /^\(idle\)\|/],
  ["garbage collection", /^\(garbage collector\)\|/],
  [
    "ledger write (SQLite transaction, I/O included)",
    /better-sqlite3|sqlite-batch|sqlite-ledger/,
  ],
  [
    "socket writes (writev, ws sender)",
    /^writev\||writevGeneric|ws\/lib\/sender|Socket\._write|uncork/,
  ],
  [
    "async_hooks (AsyncLocalStorage's promise hooks)",
    /promiseInitHook|promiseBeforeHook|promiseAfterHook|lookupPublicResource|_propagate/,
  ],
  [
    "SDK transport (jsonrpc queue, web streams, router, mailbox, pump)",
    /sdk\/dist\/(core\/jsonrpc|transports\/(connection|ws-server))|webstreams/,
  ],
  [
    "hub fan-out (attachments, connection, socket wire, outbound queue)",
    /hub\/(attachments|frames)|server\/(connection|socket-wire|outbound-queue)/,
  ],
  [
    "tracing (OpenTelemetry SDK, OTLP export, acphub's telemetry)",
    /@opentelemetry|\/telemetry\//,
  ],
  [
    "engine relay (session relay, editor channel, group commit)",
    /session-relay|editor-channel|group-commit|event-log|counters|followers/,
  ],
  ["agent side (line parsing, client core)", /ndjson|client-core|agents\//],
  ["module loading", /modules\/(cjs|esm)|compileSourceTextModule|wrapSafe/],
  ["(program)", /^\(program\)\|/],
];

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes)
  for (const child of n.children ?? []) parent.set(child, n.id);
const label = (n) =>
  `${n.callFrame.functionName}|${n.callFrame.url}:${n.callFrame.lineNumber + 1}`;

// The part a sample's stack belongs to.
function partOf(leaf) {
  for (let id = leaf; id !== undefined; id = parent.get(id)) {
    const name = label(nodes.get(id));
    for (const [part, pattern] of PARTS) if (pattern.test(name)) return part;
  }
  return "other";
}

const shares = new Map();
let total = 0;
profile.samples.forEach((leaf, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const part = partOf(leaf);
  shares.set(part, (shares.get(part) ?? 0) + dt);
});
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
for (const [part, t] of [...shares].sort((a, b) => b[1] - a[1]))
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${part}`);
