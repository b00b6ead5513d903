// Terminals for agents: each command in its own process group, output bounded, a wall-clock
// timeout, a cap per session; kill keeps the id, release frees it, and ending a session
// releases its terminals. Nothing outlives acphub's hold on it.
import { spawn, type ChildProcess } from "node:child_process";
import { HubError } from "../shared/errors.js";
import { killGroup } from "../shared/process-group.js";
import { permissionDenied, resourceNotFound } from "../protocol/wire-errors.js";
import { TailBuffer } from "../shared/tail-buffer.js";
import { once } from "../shared/once.js";
import { isShellLine } from "./shell-script.js";
import { TerminalArchive, type TerminalSnapshot } from "./terminal-archive.js";

/** Turns the argv into the one to spawn (inside the OS sandbox), or leaves it (undefined). */
export type TerminalWrap = (argv: {
  command: string;
  args: readonly string[];
}) => Promise<
  | {
      command: string;
      args: string[];
      release(): void;
      /** What the command leaves if acphub is killed -9 (its temporary folder, the sandbox's
       *  mount points), for a later reaper. */
      leftovers?: string[];
    }
  | undefined
>;

export interface TerminalLimits {
  /** Most output kept per terminal (the request's `outputByteLimit` may lower it). */
  outputByteLimit: number;
  /** Wall-clock limit per command; the group is killed when it passes. */
  timeoutMs: number;
  /** Terminals one session may hold at once. */
  maxPerSession: number;
}

export const DEFAULT_TERMINAL_LIMITS: TerminalLimits = {
  outputByteLimit: 1024 * 1024,
  timeoutMs: 10 * 60_000,
  maxPerSession: 8,
};

export interface CreateParams {
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  outputByteLimit?: number | null;
}

interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

interface Terminal {
  id: string;
  sessionId: string;
  child: ChildProcess;
  output: TailBuffer;
  exit?: ExitStatus;
  exited: Promise<ExitStatus>;
  timer: NodeJS.Timeout;
  /** Undoes what the sandbox set up for this terminal. */
  release?: () => void;
}

// A whole shell line with no args runs as `sh -c LINE`, as editors run it.
function argvOf(params: CreateParams) {
  const args = params.args ?? [];
  return isShellLine(params.command, args)
    ? { command: "sh", args: ["-c", params.command] }
    : { command: params.command, args };
}

/** Records live process groups so a later acphub reaps them if this one is killed (kill -9). */
export interface ProcessRecorder {
  /** `leftovers`: folders the process owns, for the reaper to remove once it is gone. */
  record(pid: number, name: string, leftovers?: string[]): void;
  forget(pid: number): void;
}

export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private nextId = 1;
  /** The last output of released terminals, for hub clients (`peek`). */
  private readonly archive = new TerminalArchive();

  constructor(
    private readonly limits: TerminalLimits,
    private readonly recorder?: ProcessRecorder,
  ) {}

  /** Terminals held, by one session or by all. */
  count(sessionId?: string): number {
    let n = 0;
    for (const t of this.terminals.values())
      if (sessionId === undefined || t.sessionId === sessionId) n++;
    return n;
  }

  // Starts the command (already checked against policy) and resolves once it is running.
  async create(
    sessionId: string,
    params: CreateParams,
    cwd: string,
    baseEnv: Record<string, string>,
    wrap?: TerminalWrap,
  ) {
    if (this.count(sessionId) >= this.limits.maxPerSession) {
      throw permissionDenied(
        `session already holds ${this.limits.maxPerSession} terminals (terminals.maxPerSession); release one first`,
        { reason: "too-many-terminals" },
      );
    }
    const env = { ...baseEnv };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const argv = argvOf(params);
    const wrapped = await wrap?.(argv);
    // The sandbox's leftovers go once the command is gone (exit, failed start or release).
    const release = once(() => wrapped?.release());
    const child = spawn(
      wrapped?.command ?? argv.command,
      wrapped?.args ?? argv.args,
      {
        cwd,
        env,
        detached: true,
        shell: false,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    // Recorded for the orphan reaper at once (the pid is known when spawn returns), not a tick
    // later: a kill -9 of acphub in between would leave the terminal to nobody.
    if (child.pid !== undefined)
      this.recorder?.record(
        child.pid,
        `terminal: ${params.command}`,
        wrapped?.leftovers,
      );
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) this.recorder?.forget(child.pid);
        release();
        reject(
          resourceNotFound(
            `cannot run ${JSON.stringify(params.command)}: ${error.code ?? error.message}`,
            { reason: "spawn-failed" },
          ),
        );
      });
    });
    const pid = child.pid!;
    const limit = Math.min(
      params.outputByteLimit ?? Infinity,
      this.limits.outputByteLimit,
    );
    const output = new TailBuffer(Math.max(0, limit));
    child.stdout!.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk));
    const id = `term-${this.nextId++}`;
    const timer = setTimeout(
      () => killGroup(child.pid!, "SIGKILL"),
      this.limits.timeoutMs,
    );
    timer.unref();
    const exited = new Promise<ExitStatus>((resolve) => {
      child.once("close", (exitCode, signal) => {
        clearTimeout(timer);
        this.recorder?.forget(pid);
        release();
        terminal.exit = { exitCode, signal };
        resolve(terminal.exit);
      });
    });
    const terminal: Terminal = {
      id,
      sessionId,
      child,
      output,
      exited,
      timer,
      release,
    };
    this.terminals.set(id, terminal);
    return { terminalId: id, pid: child.pid! };
  }

  private get(sessionId: string, terminalId: unknown): Terminal {
    const terminal = this.terminals.get(String(terminalId));
    if (!terminal || terminal.sessionId !== sessionId)
      throw resourceNotFound(
        `no terminal ${String(terminalId)} in this session`,
      );
    return terminal;
  }

  output(sessionId: string, terminalId: unknown): TerminalSnapshot {
    const t = this.get(sessionId, terminalId);
    return {
      output: t.output.text(),
      truncated: t.output.truncated,
      ...(t.exit ? { exitStatus: t.exit } : {}),
    };
  }

  // A terminal's output for a hub client watching the session: live, or the last output kept
  // after the agent released it (`released: true`).
  peek(sessionId: string, terminalId: string): TerminalSnapshot {
    const kept = this.archive.get(sessionId, terminalId);
    return kept ?? this.output(sessionId, terminalId);
  }

  async waitForExit(
    sessionId: string,
    terminalId: unknown,
    signal: AbortSignal,
  ): Promise<ExitStatus> {
    const t = this.get(sessionId, terminalId);
    if (signal.aborted) throw new HubError("CLOSED", "request cancelled");
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new HubError("CLOSED", "request cancelled"));
      signal.addEventListener("abort", onAbort, { once: true });
      void t.exited.then((status) => {
        signal.removeEventListener("abort", onAbort);
        resolve(status);
      });
    });
  }

  /** Kills the command's whole process group; the id stays valid for output and exit. */
  kill(sessionId: string, terminalId: unknown): Record<string, never> {
    const t = this.get(sessionId, terminalId);
    if (t.child.pid !== undefined) killGroup(t.child.pid, "SIGKILL");
    return {};
  }

  /** Kills and forgets the terminal. */
  release(sessionId: string, terminalId: unknown): Record<string, never> {
    const t = this.get(sessionId, terminalId);
    this.drop(t);
    return {};
  }

  private drop(t: Terminal): void {
    this.archive.keep(t.id, t.sessionId, this.output(t.sessionId, t.id));
    clearTimeout(t.timer);
    if (t.child.pid !== undefined) killGroup(t.child.pid, "SIGKILL");
    t.release?.();
    this.terminals.delete(t.id);
  }

  releaseSession(sessionId: string): void {
    for (const t of [...this.terminals.values()])
      if (t.sessionId === sessionId) this.drop(t);
  }

  closeAll(): void {
    for (const t of [...this.terminals.values()]) this.drop(t);
  }
}
