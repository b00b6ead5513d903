// Runs the real CLI as a subprocess with a temporary ACPHUB_HOME.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, tempDir } from "./mock.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  home?: string;
  input?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The CLI's working directory (default: this process's). */
  cwd?: string;
  /** Called with the child once it is running (to send signals). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
}

export function runCli(
  args: string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const home = options.home ?? tempDir("acphub-home-");
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      ACPHUB_HOME: home,
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.input ?? "");
  options.onSpawn?.(child);
  const timer = setTimeout(
    () => child.kill("SIGKILL"),
    options.timeoutMs ?? 60_000,
  );
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The latest session's recorded events, and the stderr of `sessions list` (orphan reports). */
export async function lastSessionEvents(home: string): Promise<{
  events: { kind: string; payload: Record<string, unknown> }[];
  listStderr: string;
}> {
  const list = await runCli(["sessions", "list", "--json"], { home });
  const [session] = JSON.parse(list.stdout) as { id: string }[];
  const show = await runCli(["sessions", "show", session!.id, "--json"], {
    home,
  });
  const { events } = jsonLines(show.stdout)[0] as {
    events: { kind: string; payload: Record<string, unknown> }[];
  };
  return { events, listStderr: list.stderr };
}

/** A fresh ACPHUB_HOME whose config has one agent `name`: a Node script with this source. */
export function homeWithScriptAgent(name: string, source: string): string {
  const home = tempDir("acphub-home-");
  const script = join(home, `${name}-agent.cjs`);
  writeFileSync(script, source);
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      agents: { [name]: { command: process.execPath, args: [script] } },
    }),
  );
  return home;
}
