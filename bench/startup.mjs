// The CLI's own start-up cost: wall time from launching `acphub run` to the moment the agent
// process starts (the agent's first command stamps the time), against bare `node` start-up.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, median } from "./common.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const home = mkdtempSync(join(tmpdir(), "acphub-startup-"));
const stamp = join(home, "agent-started");
const agent = {
  command: "sh",
  args: [
    "-c",
    `date +%s%N > ${stamp}; exec "${process.execPath}" "${CLI}" mock-agent`,
  ],
};
writeFileSync(
  join(home, "config.json"),
  JSON.stringify({ defaultAgent: "stamped", agents: { stamped: agent } }),
);
const env = { ...process.env, ACPHUB_HOME: home };

const toSpawn = [];
const bare = [];
for (let i = 0; i < ROUNDS; i++) {
  const start = Date.now();
  execFileSync(process.execPath, [CLI, "run", "hi"], { env, stdio: "ignore" });
  toSpawn.push(
    Number(BigInt(readFileSync(stamp, "utf8").trim()) / 1_000_000n) - start,
  );
  const t = performance.now();
  spawnSync(process.execPath, ["-e", ""]);
  bare.push(performance.now() - t);
}
const spawnMs = median(toSpawn);
const nodeMs = median(bare);
console.log(`CLI start-up, median of ${ROUNDS}`);
console.log(`  launch → agent spawned : ${spawnMs} ms`);
console.log(`  bare node start + exit : ${nodeMs.toFixed(0)} ms`);
console.log(
  `  acphub's own work      : ~${Math.max(0, spawnMs - nodeMs).toFixed(0)} ms (target: under 150 ms)`,
);
