// What an editor may ask of the gateway: prompt size, session creation rate, and what a
// second prompt on a busy session does.
import { HubError } from "../shared/errors.js";

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

/** A request's size as sent and stored: all of it (blocks, `_meta`, any other field), in bytes. */
export function requestBytes(params: unknown): number {
  return Buffer.byteLength(JSON.stringify(params ?? null));
}

// Refuses a prompt request over the cap. Its size is the whole request — the blocks, `_meta`
// and any other field — measured once; over the cap, a block too big on its own is named.
export function checkPromptSize(
  params: Record<string, unknown>,
  blocks: unknown[],
  maxBytes: number,
): void {
  const total = requestBytes(params);
  if (total <= maxBytes) return;
  blocks.forEach((block, index) => {
    const bytes = requestBytes(block);
    if (bytes > maxBytes) {
      throw new HubError(
        "LIMIT_EXCEEDED",
        `prompt block ${index} is ${bytes} bytes; the limit is ${maxBytes} (limits.maxPromptBytes)`,
      );
    }
  });
  throw new HubError(
    "LIMIT_EXCEEDED",
    `prompt request is ${total} bytes (its blocks, _meta and every other field); the limit is ${maxBytes} (limits.maxPromptBytes)`,
  );
}

export class FixedWindowLimiter {
  private windowStart = 0;
  private used = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one unit; false when the window is used up. */
  take(): boolean {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      this.windowStart = t;
      this.used = 0;
    }
    if (this.used >= this.max) return false;
    this.used += 1;
    return true;
  }
}
