// What budgets count: the tokens of each prompt answer and the growth of each session's
// cumulative cost (the ledger's usage table: engine/turn-usage.ts), per agent and per hub user,
// within the current UTC day and month.

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

/** A prompt answer's tokens, a usage_update's cumulative cost: what the engine records. */
export { reportedCost, turnTokens } from "../engine/turn-usage.js";
