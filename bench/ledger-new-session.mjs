// What a new session costs the ledger as sessions pile up (issue 39: no cost may grow with the
// number of sessions): 10,000 sessions created one after another under the default cap of 10,000,
// then 2,000 more past it (each evicts the least recently updated), the mean time of each
// createSession per 2,000, on SQLite and PostgreSQL. One in seven sessions shares an updated_at
// with others (eviction breaks ties by id).
//   npm run build && node bench/ledger-new-session.mjs
//   BENCH_DIST=/path/to/main/dist node bench/ledger-new-session.mjs   # another build's ledger
//   BENCH_LEDGER=sqlite|postgres
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchPostgres } from "./pg-server.mjs";

const dist = resolve(
  process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname,
);
const { openLedgerAt } = await import(join(dist, "ledger/open.js"));
const CAP = 10_000;
const STEP = 2_000;

const session = (i) => ({
  id: `s-${i}`,
  agent: "mock",
  cwd: "/work/project",
  title: null,
  createdAt: i,
  updatedAt: i % 7 === 0 ? 7 : i,
  state: "active",
  agentSessionId: `ag-${i}`,
  request: { cwd: "/work/project", mcpServers: [] },
});

async function measure(name, where) {
  const ledger = await openLedgerAt(where, { caps: { maxSessions: CAP } });
  const means = [];
  let t0 = performance.now();
  for (let i = 0; i < CAP + STEP; i++) {
    await ledger.createSession(session(i));
    if ((i + 1) % STEP > 0) continue;
    means.push(`${i + 1}: ${((performance.now() - t0) / STEP).toFixed(2)}`);
    t0 = performance.now();
  }
  await ledger.close();
  console.log(
    `${name}: ms per new session, by sessions created (cap ${CAP}): ${means.join(", ")}`,
  );
}

const only = process.env.BENCH_LEDGER;
if (only !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-new-session-"));
  await measure("SQLite", join(dir, "ledger.db"));
  rmSync(dir, { recursive: true, force: true });
}
if (only !== "sqlite") {
  const pg = await benchPostgres();
  try {
    await measure("PostgreSQL", pg.url);
  } finally {
    await pg.stop();
  }
}
