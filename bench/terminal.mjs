// What the OS sandbox costs a terminal: time to create one, run `true` to its exit, and release
// it, with and without the sandbox. Prints medians and the ratio.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalManager } from "../dist/host/terminals.js";
import { terminalSandbox } from "../dist/host/sandbox/terminal-sandbox.js";
import { DEFAULT_SANDBOX } from "../dist/host/sandbox/settings.js";
import { stopSandbox } from "../dist/host/sandbox/os-sandbox.js";
import { median } from "./common.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const cwd = mkdtempSync(join(tmpdir(), "acphub-bench-"));
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };

// One terminal's life: create, wait for its exit, release; returns [create ms, total ms].
async function once(manager, sandbox) {
  const start = performance.now();
  const { terminalId } = await manager.create(
    "bench",
    { command: "true" },
    cwd,
    env,
    (argv) => sandbox.wrap(argv, cwd, [cwd]),
  );
  const created = performance.now() - start;
  await manager.waitForExit("bench", terminalId, AbortSignal.timeout(30_000));
  manager.release("bench", terminalId);
  return [created, performance.now() - start];
}

async function measure(mode) {
  const sandbox = terminalSandbox({ ...DEFAULT_SANDBOX, mode });
  const manager = new TerminalManager({
    outputByteLimit: 1024,
    timeoutMs: 60_000,
    maxPerSession: 8,
  });
  await once(manager, sandbox); // warm-up (starts the sandbox runtime once)
  const created = [];
  const total = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [c, t] = await once(manager, sandbox);
    created.push(c);
    total.push(t);
  }
  return { create: median(created), total: median(total) };
}

const off = await measure("off");
const os = await measure("os");
await stopSandbox();
console.log(`terminal create + run \`true\` + release, median of ${ROUNDS}`);
console.log(
  `  no sandbox : create ${off.create.toFixed(1)} ms, to exit and release ${off.total.toFixed(1)} ms`,
);
console.log(
  `  OS sandbox : create ${os.create.toFixed(1)} ms, to exit and release ${os.total.toFixed(1)} ms`,
);
console.log(
  `  ratio (sandbox / none, total): ${(os.total / off.total).toFixed(1)}x`,
);
