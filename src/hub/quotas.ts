// Per-user quotas of `acphub serve` (issue 22): turns running at once, prompts per minute and
// prompt size, from config `users.limits` with per-user overrides in `users.perUser`. Over a
// quota a prompt is refused before anything is recorded, with the limit's name and when it frees
// up. Counted per hub process; admins are not limited.
import type { HubUser, UserLimits } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

export interface QuotaConfig {
  limits?: UserLimits;
  perUser?: Record<string, UserLimits>;
}

const MINUTE_MS = 60_000;

export class Quotas {
  private readonly running = new Map<string, number>();
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly config: QuotaConfig = {},
    private readonly now: () => number = Date.now,
  ) {}

  private limitsOf(user: string): UserLimits {
    return { ...this.config.limits, ...this.config.perUser?.[user] };
  }

  // Admits one prompt of `bytes` for a user, or throws naming the limit; call the returned
  // function when its turn ends.
  admit(user: HubUser | undefined, bytes: number): () => void {
    if (!user || user.role === "admin") return () => undefined;
    const l = this.limitsOf(user.name);
    if (l.promptBytes !== undefined && bytes > l.promptBytes)
      throw over(
        `promptBytes (${l.promptBytes} bytes; this prompt is ${bytes} bytes)`,
        "send a smaller prompt",
      );
    const running = this.running.get(user.name) ?? 0;
    if (l.concurrentTurns !== undefined && running >= l.concurrentTurns)
      throw over(
        `concurrentTurns (${l.concurrentTurns} at once)`,
        "frees up when one of your turns ends",
      );
    this.takeMinute(user.name, l.promptsPerMinute);
    this.running.set(user.name, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.set(user.name, (this.running.get(user.name) ?? 1) - 1);
    };
  }

  // Counts a prompt in the user's last minute, or throws when the minute is full.
  private takeMinute(user: string, perMinute: number | undefined): void {
    if (perMinute === undefined) return;
    const t = this.now();
    const times = (this.recent.get(user) ?? []).filter(
      (x) => x > t - MINUTE_MS,
    );
    if (times.length >= perMinute) {
      const wait = Math.ceil((times[0]! + MINUTE_MS - t) / 1000);
      this.recent.set(user, times);
      throw over(
        `promptsPerMinute (${perMinute} per minute)`,
        `frees up in ${wait} s`,
        wait,
      );
    }
    times.push(t);
    this.recent.set(user, times);
  }
}

function over(limit: string, when: string, retryAfterS?: number): HubError {
  return new HubError(
    "LIMIT_EXCEEDED",
    `quota users.limits.${limit} reached: ${when}`,
    {
      retryable: true,
      ...(retryAfterS !== undefined ? { details: { retryAfterS } } : {}),
    },
  );
}
