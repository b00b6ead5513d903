// What an editor may ask of the gateway: prompt size, session creation rate, and what a
// second prompt on a busy session does.
import { refusal } from "./admission.js";

export interface GatewayLimits {
  /** Largest prompt, checked per content block and again for the whole prompt. */
  maxPromptBytes: number;
  /** Sessions an editor may create per minute (fixed window). */
  sessionsPerMinute: number;
  /** A prompt on a session whose turn is running: refuse it, or cancel the running turn. */
  busyPrompt: "reject" | "cancel";
}

export const DEFAULT_GATEWAY_LIMITS: GatewayLimits = {
  maxPromptBytes: 2 * 1024 * 1024,
  sessionsPerMinute: 120,
  busyPrompt: "reject",
};

// The one rate limiter (limits per connection, quotas per user): a sliding window of the times
// each key took a unit; the answer is 0 when taken, else the ms until one frees up.
export class RateWindow {
  private readonly recent = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, max: number, windowMs: number): number {
    const t = this.now();
    const times = (this.recent.get(key) ?? []).filter((x) => x > t - windowMs);
    if (times.length >= max) {
      this.recent.set(key, times);
      return Math.max(1, times[0]! + windowMs - t);
    }
    times.push(t);
    this.recent.set(key, times);
    return 0;
  }
}

// Takes one of a connection's (or gateway's) new sessions this minute, or refuses naming the
// limit (`where`: " on this connection") and when it frees up.
export function perMinute(window: RateWindow, max: number, where: string) {
  const waitMs = window.take("sessions", max, 60_000);
  if (waitMs > 0)
    throw refusal(
      "limit",
      `too many new sessions${where}: the limit is ${max} per minute`,
      { retryable: true, retryAfterS: Math.ceil(waitMs / 1000) },
    );
}
