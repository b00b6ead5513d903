// What budgets count, and how much of it the ledger already holds: the tokens of each prompt
// answer and the growth of each session's cumulative cost, per agent and per hub user, within
// the current UTC day and month.
import type { LedgerEvent, LedgerPort } from "../engine/ports.js";

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

// Walks one session's events: each turn's tokens and each cost growth, with the user who sent
// the turn's prompt. Returns the session's last reported cumulative cost.
export function sessionUses(
  agent: string,
  events: LedgerEvent[],
  use: (u: Use) => void,
): number | undefined {
  let user: string | undefined;
  let last: number | undefined;
  for (const e of events) {
    if (e.kind === "prompt") {
      const u = e.payload["author"];
      user = typeof u === "string" ? u : undefined;
    } else if (e.kind === "turn_end") {
      const usage = e.payload["usage"] as Record<string, unknown> | undefined;
      const tokens = turnTokens(usage);
      if (tokens > 0)
        use({ at: e.at, agent, user, tokens, cost: 0, currency: null });
    } else if (e.kind === "update") {
      const cost = reportedCost(
        (e.payload["update"] ?? {}) as Record<string, unknown>,
      );
      if (!cost) continue;
      const growth = Math.max(0, cost.amount - (last ?? 0));
      last = cost.amount;
      if (growth > 0)
        use({
          at: e.at,
          agent,
          user,
          tokens: 0,
          cost: growth,
          currency: cost.currency,
        });
    }
  }
  return last;
}

// Every use recorded since `since` (sessions updated since then), and each such session's last
// reported cost.
export async function usesSince(
  ledger: LedgerPort,
  since: number,
  use: (u: Use) => void,
): Promise<Map<string, number>> {
  const lastCost = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page = await ledger.listSessions({ cursor, limit: 500 });
    for (const record of page.sessions) {
      if (record.updatedAt < since) continue;
      const last = sessionUses(
        record.agent,
        await ledger.events(record.id),
        (u) => {
          if (u.at >= since) use(u);
        },
      );
      if (last !== undefined) lastCost.set(record.id, last);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return lastCost;
}

// A session's last reported cumulative cost (its cost growth counts from there).
export async function lastCostOf(
  ledger: LedgerPort,
  sessionId: string,
  agent: string,
): Promise<number | undefined> {
  return sessionUses(agent, await ledger.events(sessionId), () => undefined);
}
