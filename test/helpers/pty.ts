// Drives a command through a real pseudo-terminal (test/helpers/run_in_pty.py), so the CLI sees a TTY.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { stripAnsi } from "../../src/cli/tty/ansi.js";
import { CLI } from "./mock.js";

const PTY = fileURLToPath(new URL("./run_in_pty.py", import.meta.url));

export interface PtySession {
  /** Everything shown so far, escape sequences removed. */
  screen(): string;
  /** Everything written to the terminal, escape sequences included. */
  raw(): string;
  type(keys: string): void;
  /** Waits until the screen (after `from` characters) contains `text`. */
  waitFor(
    text: string | RegExp,
    from?: number,
    timeoutMs?: number,
  ): Promise<void>;
  exited: Promise<number | null>;
  kill(): void;
}

/** The terminal's size (default 80 columns, 24 rows). */
export interface PtySize {
  columns?: number;
  rows?: number;
}

export function ptyCli(
  args: string[],
  env: Record<string, string>,
  size: PtySize = {},
): PtySession {
  const child = spawn("python3", [PTY, process.execPath, CLI, ...args], {
    env: {
      PATH: process.env["PATH"] ?? "",
      TERM: "xterm-256color",
      PTY_SIZE: `${size.columns ?? 80}x${size.rows ?? 24}`,
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  child.stdout.on("data", (d: Buffer) => (raw += d.toString()));
  child.stdin.on("error", () => undefined);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  const screen = () => stripAnsi(raw).replace(/\r/g, "");
  return {
    screen,
    raw: () => raw,
    type: (keys) => child.stdin.write(keys),
    // 30 s: a bound for a hang, not a speed check (two suites at once took over 10 s).
    waitFor: async (text, from = 0, timeoutMs = 30_000) => {
      const end = Date.now() + timeoutMs;
      const found = () => {
        const s = screen().slice(from);
        return typeof text === "string" ? s.includes(text) : text.test(s);
      };
      while (!found()) {
        if (Date.now() > end)
          throw new Error(
            `timed out waiting for ${String(text)}; screen:\n${screen()}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exited,
    kill: () => child.kill("SIGKILL"),
  };
}
