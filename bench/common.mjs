// Shared bits of the benchmarks: the mock agent launch and small statistics.
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(
  new URL("../dist/cli/main.js", import.meta.url),
);

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
