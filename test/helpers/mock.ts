// Helpers that launch the real mock agent (dist/cli/main.js mock-agent) as a subprocess.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentLaunch } from "../../src/agents/registry.js";
import {
  connectAgent,
  type ConnectOptions,
} from "../../src/agents/connection.js";

export const CLI = fileURLToPath(
  new URL("../../dist/cli/main.js", import.meta.url),
);

export function mockLaunch(flags: string[] = [], name = "mock"): AgentLaunch {
  return {
    name,
    command: process.execPath,
    args: [CLI, "mock-agent", ...flags],
    env: { PATH: process.env["PATH"] ?? "" },
    source: "bundled",
    description: "test mock",
  };
}

export function connectMock(
  flags: string[] = [],
  options: Partial<ConnectOptions> = {},
) {
  return connectAgent({ launch: mockLaunch(flags), ...options });
}

/** A prompt that makes the mock agent follow these steps. */
export function steps(...list: Record<string, unknown>[]): string {
  return JSON.stringify({ steps: list });
}

export { tempDir } from "./temp-dirs.js";

// True when no live process of the group led by `pid` is left. Zombies do not count: they
// are dead, waiting for init (slow to reap in some containers) to collect them.
export function groupGone(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`groupGone needs a real pid, got ${pid}`);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[2] === String(pid) && fields[0] !== "Z") return false;
  }
  return true;
}

// 30 s: a bound for a hang, not a speed check (a busy machine took over 5 s to reap a process).
export async function waitFor(
  check: () => boolean,
  timeoutMs = 30_000,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** A mock turn whose prompt answer reports `tokens` tokens, after a cumulative `cost` (USD) when
 *  given: what budgets and `acphub usage` count. */
export const usageTurn = (tokens: number, cost?: number): string =>
  JSON.stringify({
    steps: [
      ...(cost === undefined
        ? []
        : [
            {
              usage: {
                used: 1,
                size: 10,
                cost: { amount: cost, currency: "USD" },
              },
            },
          ]),
      { text: "ok" },
    ],
    usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
  });
