// Per-user quotas of `acphub serve` (issue 22): sessions open at once, turns running at once,
// prompts per minute and prompt size, from config `users.limits`, overridden per user by config
// `users.perUser` and then by the user's row in the ledger (`acphub users limits`). Over a quota
// a request is refused before anything is recorded, with the limit's name and when it frees up
// (the one refusal shape of engine/admission.ts). Counted by a QuotaCounter (this process's
// counts, or a cluster's in its ledger); admins are not limited.
import type { HubUser, UserLimits } from "../contracts/users.js";
import type { HubError } from "../shared/errors.js";
import { refusal, type AdmissionCheck } from "../engine/admission.js";
import { InProcessQuotaCounter, type QuotaCounter } from "./quota-counter.js";

export interface QuotaConfig {
  limits?: UserLimits;
  perUser?: Record<string, UserLimits>;
  /** A user's own limits as the ledger keeps them (the users table), read at each request. */
  stored?: (user: string) => UserLimits | null | undefined;
}

const MINUTE_MS = 60_000;

/** users.limits.agentProcesses when neither the config nor the user's row sets it. */
export const DEFAULT_AGENT_PROCESSES = 4;

export class Quotas {
  /** The live marks of the sessions users have open here, by "user\0session". */
  private readonly marks = new Map<string, Promise<() => void>>();

  constructor(
    private readonly config: QuotaConfig = {},
    /** Where the counts are kept (other per-user counts, agent processes, use it too). */
    readonly counter: QuotaCounter = new InProcessQuotaCounter(),
  ) {}

  /** A user's limits: the config's, then config `users.perUser`, then the ledger's row. */
  limitsOf(user: string): UserLimits {
    return {
      ...this.config.limits,
      ...this.config.perUser?.[user],
      ...definedOnly(this.config.stored?.(user)),
    };
  }

  // Admits opening a session (new, load, resume, fork; `sessionId`: the one loaded or resumed)
  // for a user, counting the sessions they have open (on every node of a cluster) and the opens
  // under way, or throws naming the limit; call the returned function once the open has ended
  // (the session then counts as open, or it failed).
  async admitOpen(
    user: HubUser | undefined,
    sessionId?: unknown,
  ): Promise<() => void> {
    if (!user || user.role === "admin") return () => undefined;
    const max = this.limitsOf(user.name).liveSessions;
    if (max === undefined) return () => undefined;
    const id = typeof sessionId === "string" ? sessionId : undefined;
    const release = await this.counter.hold(user.name, "opening", max, id);
    if (!release)
      throw over(
        `liveSessions (${max} open at once)`,
        "frees up when you close one of your sessions (session/close) or disconnect",
      );
    return release;
  }

  // A user's connections here now have the session open (`open`), or no longer: marked in the
  // counter, so that liveSessions counts it wherever the user opens the next one.
  sessionOpen(user: HubUser | undefined, sessionId: string, open: boolean) {
    if (!user || user.role === "admin") return;
    const key = `${user.name}\0${sessionId}`;
    const mark = this.marks.get(key);
    if (open) {
      if (!mark)
        this.marks.set(
          key,
          this.counter.live(user.name, sessionId).catch(() => () => undefined),
        );
      return;
    }
    this.marks.delete(key);
    void mark?.then((release) => release());
  }

  // Resolves once what a session's open changed counts on every node: the session's live mark
  // (a cluster writes it without waiting) and the holds given back so far. An open's answer
  // waits for it, so that the user's next open anywhere is counted against the right number.
  async settled(
    user: HubUser | undefined,
    sessionId: string | undefined,
  ): Promise<void> {
    if (user && sessionId) await this.marks.get(`${user.name}\0${sessionId}`);
    await this.counter.settled?.();
  }

  // Holds one of a user's agent processes (issue 36): a release, or undefined when they have
  // users.limits.agentProcesses of them; an admin's are not limited (nothing is held).
  holdProcess(user: HubUser): Promise<(() => void) | undefined> {
    if (user.role === "admin") return Promise.resolve(() => undefined);
    return this.counter.hold(user.name, "agents", this.maxProcesses(user.name));
  }

  /** The refusal of one more agent process of a user at their limit (none of theirs idle). */
  processesOver(user: string): HubError {
    const max = this.maxProcesses(user);
    return over(
      `agentProcesses (${max} agent processes at once for ${user}, none of them idle)`,
      `frees up when one of ${user}'s agent processes ends (closed once none of its sessions is attached or running for serve.idleAgentMs)`,
    );
  }

  private maxProcesses(user: string): number {
    return this.limitsOf(user).agentProcesses ?? DEFAULT_AGENT_PROCESSES;
  }

  /** The quota check of a user's prompts, in the prompt's admission (engine/admission.ts). */
  check(user: HubUser | undefined): AdmissionCheck {
    return {
      kind: "quota",
      admit: ({ prompt, waits }) => this.admit(user, prompt.bytes, waits),
    };
  }

  // Admits one prompt request of `bytes` (all of it, `_meta` included) for a user, or throws
  // naming the limit; call the returned function when its turn ends. A prompt queued behind a
  // running turn (`waits`) is not counted as a turn running at once.
  async admit(
    user: HubUser | undefined,
    bytes: number,
    waits = false,
  ): Promise<() => void> {
    if (!user || user.role === "admin") return () => undefined;
    const l = this.limitsOf(user.name);
    if (l.promptBytes !== undefined && bytes > l.promptBytes)
      throw over(
        `promptBytes (${l.promptBytes} bytes; this prompt request is ${bytes} bytes, _meta included)`,
        "send a smaller prompt",
      );
    const turns = waits ? undefined : l.concurrentTurns;
    if (turns !== undefined) {
      if ((await this.counter.held(user.name, "turns")) >= turns)
        throw turnsOver(turns);
    }
    await this.takeMinute(user.name, l.promptsPerMinute);
    if (turns === undefined) return () => undefined;
    const release = await this.counter.hold(user.name, "turns", turns);
    if (!release) throw turnsOver(turns);
    return release;
  }

  // Counts a prompt in the user's last minute, or throws when the minute is full.
  private async takeMinute(user: string, perMinute: number | undefined) {
    if (perMinute === undefined) return;
    const waitMs = await this.counter.take(user, perMinute, MINUTE_MS);
    if (waitMs === 0) return;
    const wait = Math.ceil(waitMs / 1000);
    throw over(
      `promptsPerMinute (${perMinute} per minute)`,
      `frees up in ${wait} s`,
      wait,
    );
  }
}

// The limits a stored row sets (a null or missing key leaves the config's).
function definedOnly(limits: UserLimits | null | undefined): UserLimits {
  const out: UserLimits = {};
  for (const [k, v] of Object.entries(limits ?? {}))
    if (typeof v === "number") out[k as keyof UserLimits] = v;
  return out;
}

function turnsOver(max: number): HubError {
  return over(
    `concurrentTurns (${max} at once)`,
    "frees up when one of your turns ends",
  );
}

// A quota's refusal, in the one shape of every admission refusal.
function over(limit: string, when: string, retryAfterS?: number): HubError {
  return refusal("quota", `quota users.limits.${limit} reached: ${when}`, {
    retryable: true,
    ...(retryAfterS !== undefined ? { retryAfterS } : {}),
  });
}
