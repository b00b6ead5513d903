// What sharing step agent processes saves a workflow run: `acphub flow run` of four agent steps
// (two in a row, then two parallel branches) on one agent, timed from spawn to exit, and the
// agent processes it started. ACPHUB_CLI runs another build (say main's) for the comparison.
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, median } from "./common.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const cli = process.env.ACPHUB_CLI ?? CLI;
const home = mkdtempSync(join(tmpdir(), "acphub-bench-home-"));
const cwd = mkdtempSync(join(tmpdir(), "acphub-bench-proj-"));
const spawns = join(home, "spawns");
mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
writeFileSync(
  join(cwd, ".acphub", "workflows", "four.yaml"),
  `name: four
steps:
  - { id: a, agent: counted, prompt: "one" }
  - { id: b, agent: counted, prompt: "two" }
  - id: c
    parallel:
      - { agent: counted, prompt: "three" }
      - { agent: counted, prompt: "four" }
`,
);
writeFileSync(
  join(home, "config.json"),
  JSON.stringify({
    agents: {
      counted: {
        command: "sh",
        args: [
          "-c",
          `echo x >> "${spawns}"; exec "${process.execPath}" "${cli}" mock-agent`,
        ],
      },
    },
  }),
);

// One run: wall time in ms, and the agent processes it started.
function once() {
  rmSync(spawns, { force: true });
  const start = performance.now();
  const r = spawnSync(
    process.execPath,
    [cli, "flow", "run", "four", "--json", "-C", cwd],
    {
      env: { PATH: process.env.PATH ?? "", HOME: home, ACPHUB_HOME: home },
      encoding: "utf8",
    },
  );
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`flow run failed: ${r.stderr}`);
  return [ms, readFileSync(spawns, "utf8").trim().split("\n").length];
}

const times = [];
let processes = 0;
for (let i = 0; i < ROUNDS; i++) {
  const [ms, n] = once();
  times.push(ms);
  processes = n;
}
console.log(
  `flow run, 4 agent steps of one agent (${cli}): median ${median(times).toFixed(0)} ms over ${ROUNDS} runs, ${processes} agent processes per run`,
);
