// What budgets count, and how much of it the ledger already holds: the tokens of each prompt
// answer and the growth of each session's cumulative cost, per agent and per hub user, within
// the current UTC day and month.
import type { LedgerEvent } from "../engine/ports.js";

export type BudgetPeriod = "day" | "month";
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["day", "month"];

/** Used so far in one period by one agent or user. */
export interface Spent {
  tokens: number;
  cost: number;
  currency: string | null;
}

const DAY_MS = 86_400_000;

// The UTC day or month holding `now`: [start, end).
export function periodAt(
  kind: BudgetPeriod,
  now: number,
): { start: number; end: number } {
  const d = new Date(now);
  if (kind === "day") {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + DAY_MS };
  }
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

// The clock budgets read: now, moved by ACPHUB_BUDGET_CLOCK_OFFSET_MS (tests cross a period
// boundary with it; nothing else reads it).
export function budgetClock(env = process.env): () => number {
  const offset = Number(env["ACPHUB_BUDGET_CLOCK_OFFSET_MS"] ?? 0);
  const shift = Number.isFinite(offset) ? offset : 0;
  return () => Date.now() + shift;
}

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

// A prompt answer's tokens: its totalTokens, else input plus output.
export function turnTokens(usage: Record<string, unknown> | null | undefined) {
  if (!usage) return 0;
  return (
    num(usage["totalTokens"]) ??
    (num(usage["inputTokens"]) ?? 0) + (num(usage["outputTokens"]) ?? 0)
  );
}

/** A usage_update's cumulative session cost, when it reports one. */
export function reportedCost(
  update: Record<string, unknown>,
): { amount: number; currency: string | null } | undefined {
  if (update["sessionUpdate"] !== "usage_update") return undefined;
  const cost = update["cost"] as { amount?: unknown; currency?: unknown };
  const amount = num(cost?.amount);
  if (amount === undefined) return undefined;
  return {
    amount,
    currency: typeof cost.currency === "string" ? cost.currency : null,
  };
}

/** One use to count: when, by which agent and user, how much. */
export interface Use {
  at: number;
  agent: string;
  user?: string;
  tokens: number;
  cost: number;
  currency: string | null;
}

/** Where a walk through one session's events stands: who sent the last prompt, the last
 *  cumulative cost reported (the next growth counts from it). */
export interface SessionWalk {
  user?: string;
  lastCost?: number;
}

// Walks events of one session from `walk` on (updated in place): each turn's tokens and each
// cost growth, with the user who sent the turn's prompt.
export function sessionUses(
  agent: string,
  events: LedgerEvent[],
  use: (u: Use) => void,
  walk: SessionWalk = {},
): SessionWalk {
  for (const e of events) {
    if (e.kind === "prompt") {
      const u = e.payload["author"];
      if (typeof u === "string") walk.user = u;
      else delete walk.user;
    } else if (e.kind === "turn_end") {
      const usage = e.payload["usage"] as Record<string, unknown> | undefined;
      const tokens = turnTokens(usage);
      if (tokens > 0)
        use({ at: e.at, agent, ...who(walk), tokens, cost: 0, currency: null });
    } else if (e.kind === "update") {
      const cost = reportedCost(
        (e.payload["update"] ?? {}) as Record<string, unknown>,
      );
      if (!cost) continue;
      const growth = Math.max(0, cost.amount - (walk.lastCost ?? 0));
      walk.lastCost = cost.amount;
      if (growth > 0)
        use({
          at: e.at,
          agent,
          ...who(walk),
          tokens: 0,
          cost: growth,
          currency: cost.currency,
        });
    }
  }
  return walk;
}

const who = (walk: SessionWalk) => (walk.user ? { user: walk.user } : {});
