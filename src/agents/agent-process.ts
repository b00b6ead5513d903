// One agent subprocess: argv spawn (no shell) in its own process group, stderr kept as a
// bounded tail and forwarded to the logger, and an escalating shutdown.
import { secretRefs, unresolvedSecret } from "../shared/secrets.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import { TailBuffer } from "../shared/tail-buffer.js";
import { killGroup } from "../shared/process-group.js";
import type { AgentLaunch } from "./registry.js";

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all. */
  spawnError?: NodeJS.ErrnoException;
}

export interface AgentProcessOptions {
  cwd?: string;
  /** Where stderr lines go; may be set later (useLogger), for a process spawned early. */
  logger?: Logger;
  stderrTailBytes: number;
}

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<ExitInfo>;
  private readonly stderr: TailBuffer;
  private exitInfo: ExitInfo | undefined;
  private log: Logger | undefined;

  constructor(
    readonly launch: AgentLaunch,
    options: AgentProcessOptions,
  ) {
    this.stderr = new TailBuffer(options.stderrTailBytes);
    const unresolved = secretRefs(launch.env)[0];
    if (unresolved !== undefined)
      throw unresolvedSecret(launch.name, unresolved);
    this.child = spawn(launch.command, launch.args, {
      cwd: options.cwd,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
      windowsHide: true,
    });
    if (options.logger) this.useLogger(options.logger);
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr.push(chunk);
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim()) this.log?.debug({ stderr: line }, "agent stderr");
      }
    });
    // A closed pipe on stdin is reported through exit, not thrown.
    this.child.stdin.on("error", (error) =>
      this.log?.debug({ err: error }, "agent stdin error"),
    );
    // Listened for from the start: stderr may close before the exit event is seen.
    const stderrClosed = new Promise((r) => this.child.stderr.once("close", r));
    this.exited = new Promise<ExitInfo>((resolve) => {
      this.child.once("error", (error: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined)
          resolve({ code: null, signal: null, spawnError: error });
      });
      this.child.once("exit", (code, signal) => resolve({ code, signal }));
    }).then(async (info) => {
      // 'exit' can come before the last stderr bytes are read: give them a moment, so the
      // error message carries the agent's last words.
      await Promise.race([
        stderrClosed,
        new Promise((r) => setTimeout(r, 100)),
      ]);
      this.exitInfo = info;
      return info;
    });
  }

  useLogger(logger: Logger): void {
    this.log = logger.child({ agent: this.launch.name });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  stderrTail(): string {
    return this.stderr.summary();
  }

  // Kills the whole process group now.
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.pid !== undefined && !this.hasExited) killGroup(this.pid, signal);
  }

  // stdin end → SIGTERM → SIGKILL, each step waiting up to `graceMs`; the group is killed
  // last even when the leader exited, so helpers it started do not linger.
  async shutdown(graceMs: number): Promise<ExitInfo> {
    const pid = this.pid;
    if (pid === undefined) return this.exited;
    this.child.stdin.end();
    const steps: (NodeJS.Signals | undefined)[] = [
      undefined,
      "SIGTERM",
      "SIGKILL",
    ];
    for (const signal of steps) {
      if (signal) killGroup(pid, signal);
      const done = await Promise.race([
        this.exited.then(() => true),
        wait(graceMs),
      ]);
      if (done) break;
    }
    killGroup(pid, "SIGKILL");
    return this.exited;
  }
}

function wait(ms: number): Promise<false> {
  return new Promise((resolve) => setTimeout(() => resolve(false), ms).unref());
}

// Describes how an agent ended, with its stderr tail, for AGENT_EXITED/AGENT_SPAWN_FAILED.
export function exitError(
  proc: AgentProcess,
  info: ExitInfo,
  when: string,
): HubError {
  const { launch } = proc;
  if (info.spawnError) {
    const missing = info.spawnError.code === "ENOENT";
    const hint = launch.installHint
      ? ` (install it: ${launch.installHint})`
      : "";
    const what = missing
      ? `command "${launch.command}" not found${hint}`
      : `${info.spawnError.code ?? ""} ${info.spawnError.message}`.trim();
    return new HubError(
      "AGENT_SPAWN_FAILED",
      `cannot start agent "${launch.name}": ${what}`,
      {
        cause: info.spawnError,
        details: { command: launch.command, args: launch.args },
      },
    );
  }
  const how = info.signal
    ? `was killed by ${info.signal}`
    : `exited with code ${info.code}`;
  const tail = proc.stderrTail();
  return new HubError(
    "AGENT_EXITED",
    `agent "${launch.name}" ${how}${when ? ` ${when}` : ""}${tail ? `; stderr: ${tail.slice(-2000)}` : ""}`,
    {
      retryable: true,
      details: { code: info.code, signal: info.signal, stderrTail: tail },
    },
  );
}
