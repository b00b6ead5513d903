// Per-user quotas of `acphub serve` (issue 22): sessions open at once, turns running at once,
// prompts per minute and prompt size, from config `users.limits`, overridden per user by config
// `users.perUser` and then by the user's row in the ledger (`acphub users limits`). Over a quota
// a request is refused before anything is recorded, with the limit's name and when it frees up.
// Counted per hub process; admins are not limited.
import type { HubUser, UserLimits } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

export interface QuotaConfig {
  limits?: UserLimits;
  perUser?: Record<string, UserLimits>;
  /** A user's own limits as the ledger keeps them (the users table), read at each request. */
  stored?: (user: string) => UserLimits | null | undefined;
}

const MINUTE_MS = 60_000;

export class Quotas {
  private readonly running = new Map<string, number>();
  private readonly recent = new Map<string, number[]>();
  /** Sessions being opened now, by user (not yet attached, so not yet counted as open). */
  private readonly opening = new Map<string, number>();

  constructor(
    private readonly config: QuotaConfig = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** A user's limits: the config's, then config `users.perUser`, then the ledger's row. */
  limitsOf(user: string): UserLimits {
    return {
      ...this.config.limits,
      ...this.config.perUser?.[user],
      ...definedOnly(this.config.stored?.(user)),
    };
  }

  // Admits opening a session (new, load, resume, fork) for a user who has the sessions in
  // `open` open on this hub, or throws naming the limit; call the returned function once the
  // open has ended (the session then counts as open, or it failed).
  admitOpen(
    user: HubUser | undefined,
    open: ReadonlySet<string>,
    sessionId?: unknown,
  ): () => void {
    if (!user || user.role === "admin") return () => undefined;
    if (typeof sessionId === "string" && open.has(sessionId))
      return () => undefined;
    const max = this.limitsOf(user.name).liveSessions;
    const pending = this.opening.get(user.name) ?? 0;
    if (max !== undefined && open.size + pending >= max)
      throw over(
        `liveSessions (${max} open at once)`,
        "frees up when you close one of your sessions (session/close) or disconnect",
      );
    this.opening.set(user.name, pending + 1);
    return once(() =>
      this.opening.set(user.name, (this.opening.get(user.name) ?? 1) - 1),
    );
  }

  // Admits one prompt request of `bytes` (all of it, `_meta` included) for a user, or throws naming the limit; call the returned
  // function when its turn ends.
  admit(user: HubUser | undefined, bytes: number): () => void {
    if (!user || user.role === "admin") return () => undefined;
    const l = this.limitsOf(user.name);
    if (l.promptBytes !== undefined && bytes > l.promptBytes)
      throw over(
        `promptBytes (${l.promptBytes} bytes; this prompt request is ${bytes} bytes, _meta included)`,
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
    return once(() =>
      this.running.set(user.name, (this.running.get(user.name) ?? 1) - 1),
    );
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

// A release that counts once however often it is called.
function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}

// The limits a stored row sets (a null or missing key leaves the config's).
function definedOnly(limits: UserLimits | null | undefined): UserLimits {
  const out: UserLimits = {};
  for (const [k, v] of Object.entries(limits ?? {}))
    if (typeof v === "number") out[k as keyof UserLimits] = v;
  return out;
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
