// The time and size bounds of one agent connection, with units in their names.
import { HubError } from "../shared/errors.js";
import type { Config } from "../config/schema.js";

export interface ConnectionLimits {
  /** How long `initialize` may take (npx installs on first use can be slow). */
  initializeTimeoutMs: number;
  /** How long any other request to the agent may take (session/new, load, resume, close, set_mode, …). */
  requestTimeoutMs: number;
  /** How long a cancelled turn may take to end before the agent is killed. */
  cancelGraceMs: number;
  /** Each step of shutdown (stdin end, SIGTERM) waits this long before the next. */
  shutdownMs: number;
  /** Largest single message accepted from the agent. */
  maxMessageBytes: number;
  /** How much of the agent's stderr is kept for error messages. */
  stderrTailBytes: number;
  /** Events a prompt run buffers for a slow consumer before failing with LIMIT_EXCEEDED. */
  maxQueuedEvents: number;
}

export const DEFAULT_LIMITS: Readonly<ConnectionLimits> = {
  initializeTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  cancelGraceMs: 10_000,
  shutdownMs: 2_000,
  maxMessageBytes: 16 * 1024 * 1024,
  stderrTailBytes: 16 * 1024,
  maxQueuedEvents: 100_000,
};

// Merges overrides onto the defaults; a bad value is an error that quotes it.
export function resolveLimits(
  overrides: Partial<ConnectionLimits>,
): ConnectionLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ConnectionLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new HubError(
        "USAGE",
        `${key} must be a positive integer, got ${JSON.stringify(value)}`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

// The config file's timeouts and limits, in the connection's terms.
export function connectionLimits(config: Config): Partial<ConnectionLimits> {
  const { timeouts = {}, limits = {} } = config;
  return {
    initializeTimeoutMs: timeouts.initializeMs,
    requestTimeoutMs: timeouts.requestMs,
    cancelGraceMs: timeouts.cancelGraceMs,
    shutdownMs: timeouts.shutdownMs,
    maxMessageBytes: limits.maxMessageBytes,
    stderrTailBytes: limits.stderrTailBytes,
    maxQueuedEvents: limits.maxQueuedEvents,
  };
}
