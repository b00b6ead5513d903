// `--timeout SECONDS` as one deadline for the whole command: starting the agent, the turn, and
// the agent's grace to honour the cancel all fit inside it.
import type { Config } from "../config/schema.js";
import { HubError } from "../shared/errors.js";

export interface Deadline {
  /** Fires when it is time to stop: give up starting, or cancel the turn. */
  signal: AbortSignal;
  /** The end of the timeout kept for the agent to honour the cancel. */
  graceMs: number;
  seconds: number;
  dispose(): void;
}

/** The least grace an agent gets to honour a cancel before it is stopped. */
export const MIN_CANCEL_GRACE_MS = 100;

// The deadline for `--timeout`: the cancel goes out a tenth of the time (at most the configured
// cancel grace) before the end, so that a turn that ignores it still ends in time.
export function commandDeadline(
  seconds: number | undefined,
  cancelGraceMs: number,
): Deadline | undefined {
  if (seconds === undefined) return undefined;
  const totalMs = seconds * 1000;
  const graceMs = Math.min(
    cancelGraceMs,
    Math.max(MIN_CANCEL_GRACE_MS, totalMs / 10),
  );
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(),
    Math.max(0, totalMs - graceMs),
  );
  return {
    signal: controller.signal,
    graceMs,
    seconds,
    dispose: () => clearTimeout(timer),
  };
}

// The config with the cancel grace cut to what the deadline leaves.
export function withinDeadline(config: Config, deadline?: Deadline): Config {
  if (!deadline) return config;
  const timeouts = { ...config.timeouts, cancelGraceMs: deadline.graceMs };
  return { ...config, timeouts };
}

// The error for a command stopped by its deadline, saying which part ran out of time.
export function timeoutError(deadline: Deadline, started: boolean): HubError {
  const what = started ? "the turn did not finish" : "the agent did not start";
  return new HubError(
    "TIMEOUT",
    `${what} within ${deadline.seconds} s (--timeout); it was ${started ? "cancelled" : "stopped"}`,
  );
}

/** How long run and chat wait for a hub without --timeout: to reach it, and to open the session. */
export const DEFAULT_HUB_WAIT_MS = 30_000;

// The error for a hub that was reached but did not open the session within `ms`.
export function hubUnanswered(url: string, ms: number): HubError {
  return new HubError(
    "TIMEOUT",
    `the hub at ${url} did not open the session within ${ms / 1000} s (is it acphub serve?)`,
  );
}
