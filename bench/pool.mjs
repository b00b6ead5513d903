// The pool's warm-versus-cold time to first update: a cold acquire spawns and initializes
// the agent; a warm one reuses the process. Prints figures and ratio.
import { AgentPool, connectAgent } from "../dist/index.js";
import { median, mockLaunch } from "./common.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

async function firstUpdate(pool, key) {
  const start = performance.now();
  const lease = await pool.acquire(key);
  const session = await lease.connection.newSession({ cwd: process.cwd() });
  const run = session.prompt("ping");
  for await (const event of run) {
    if (event.type === "session_update") break;
  }
  const ms = performance.now() - start;
  await run.result;
  lease.release();
  return ms;
}

const cold = [];
const warm = [];
for (let round = 0; round < ROUNDS; round++) {
  const pool = new AgentPool({
    connect: () => connectAgent({ launch: mockLaunch() }),
  });
  const key = { agent: "mock", cwd: process.cwd() };
  cold.push(await firstUpdate(pool, key));
  warm.push(await firstUpdate(pool, key));
  await pool.close();
}
const c = median(cold);
const w = median(warm);
console.log(`pool time to first update, median of ${ROUNDS}`);
console.log(
  `  cold (spawn + initialize + session/new + prompt): ${c.toFixed(1)} ms`,
);
console.log(
  `  warm (pooled process, session/new + prompt)     : ${w.toFixed(1)} ms`,
);
console.log(`  ratio cold/warm: ${(c / w).toFixed(1)}x`);
