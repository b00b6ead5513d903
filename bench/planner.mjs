// The compaction's planner alone (ledger/compaction.ts `planUpdates`): what planning costs for
// batches of a few chunks (the spool's folds at `acphub serve`'s shape) and for one long turn
// (a finished turn's compaction in `acphub acp`), 30 times each, three runs. Never part of the
// tests.
//   npm run build && node bench/planner.mjs
//   BENCH_DIST=/path/to/main/dist node bench/planner.mjs   # another build's planner
import { join, resolve } from "node:path";

const dist = resolve(
  process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname,
);
const { planUpdates } = await import(join(dist, "ledger/compaction.js"));

const chunk = (n) =>
  `{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk ${n} of the reply "}}}`;
const rows = (count, firstSeq) =>
  Array.from({ length: count }, (_, i) => [firstSeq + i, chunk(i)]);

const batches = Array.from({ length: 2000 }, (_, k) => rows(10, k * 100));
const turn = rows(20000, 1);

const ms = (work) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < 30; i++) work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

for (let run = 1; run <= 3; run++) {
  const few = ms(() => batches.forEach((b) => planUpdates(b, 0)));
  const long = ms(() => planUpdates(turn, 0));
  console.log(
    `planner, run ${run}: 2,000 batches of 10 chunks ${few.toFixed(0)} ms, a turn of 20,000 chunks ${long.toFixed(0)} ms (30 times each)`,
  );
}
