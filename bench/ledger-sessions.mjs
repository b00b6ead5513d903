// The SQLite ledger alone with many sessions streaming at once (issue 39): S sessions × R
// rounds of one append per session, awaited together (one group commit per round, as
// `acphub serve` with S clients gives), this process's CPU per event; then what readers pay
// (the session list of 50 and one session's row). Rows are ~1 KB like a real session's.
//   npm run build && node bench/ledger-sessions.mjs
//   BENCH_DIST=/path/to/main/dist node bench/ledger-sessions.mjs   # another build's ledger
//   BENCH_SESSIONS=100 BENCH_ROUNDS=600
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const dist = resolve(
  process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname,
);
const { SqliteLedger } = await import(
  join(dist, "ledger/sqlite/sqlite-ledger.js")
);
const S = Number(process.env.BENCH_SESSIONS ?? 300);
const R = Number(process.env.BENCH_ROUNDS ?? 600);

const dir = mkdtempSync(join(tmpdir(), "acphub-bench-ledger-"));
const ledger = new SqliteLedger(join(dir, "ledger.db"));
const ids = [];
for (let i = 0; i < S; i++) {
  const id = `s-${i}-${"x".repeat(24)}`;
  ids.push(id);
  await ledger.createSession({
    id,
    agent: "mock",
    cwd: "/work/project",
    title: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    state: "active",
    agentSessionId: `ag-${i}`,
    request: { cwd: "/work/project", mcpServers: [], pad: "r".repeat(650) },
    settings: { modes: "s".repeat(300) },
    forkedFrom: null,
  });
}
const payload = {
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "word ".repeat(8) },
  },
};
const round = () =>
  Promise.all(ids.map((id) => ledger.append(id, "update", payload)));
for (let r = 0; r < 20; r++) await round(); // warm-up
const cpu0 = process.cpuUsage();
for (let r = 0; r < R; r++) await round();
const cpu = process.cpuUsage(cpu0);

const time = async (n, body) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await body(i);
  return ((performance.now() - t0) / n) * 1000;
};
const list = await time(200, () => ledger.listSessions({ limit: 50 }));
const get = await time(2000, (i) => ledger.getSession(ids[i % S]));
const { eventCount } = await ledger.getSession(ids[0]);
await ledger.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `${dist}: ${S} sessions × ${R} rounds: CPU per event ${((cpu.user + cpu.system) / (S * R)).toFixed(2)} µs ` +
    `(events of one session ${eventCount}); session list of 50 ${list.toFixed(0)} µs, one session ${get.toFixed(1)} µs`,
);
