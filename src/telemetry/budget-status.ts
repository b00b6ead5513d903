// Where budgets stand now, for people to read (issue 38): per agent or user, what their budget's
// current UTC period used, the limit, what is LEFT and WHEN IT RESETS. `acphub usage`, the
// admin page and a member's own Usage view all read it from here, over the ledger's usage table
// the budgets themselves count (budgets.ts).
import type { BudgetLimit, BudgetsConfig } from "../config/schema.js";
import type { LedgerPort, UsageEntry } from "../engine/ports.js";
import type { BudgetView } from "../shared/admin-answers.js";
import { periodAt, type BudgetPeriod } from "./budget-usage.js";

export type { BudgetView };

/** One name's use within a period, with its budget when config gives it one. */
export interface PeriodUse {
  name: string;
  period: BudgetPeriod;
  turns: number;
  tokens: number;
  cost: number;
  currency: string | null;
  budget?: BudgetView;
}

type Scope = "agents" | "users";

// The budget config gives a name (its own, else "*"), with the key it came from.
export function budgetFor(
  config: BudgetsConfig | undefined,
  scope: Scope,
  name: string,
): { key: string; limit: BudgetLimit } | undefined {
  const table = config?.[scope] ?? {};
  const key = name in table ? name : "*";
  const limit = table[key];
  return limit ? { key, limit } : undefined;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

// A budget's view from what its period used.
function viewOf(
  key: string,
  limit: BudgetLimit,
  use: PeriodUse,
  resetsAt: number,
): BudgetView {
  const left: BudgetView["left"] = {};
  if (limit.tokens !== undefined)
    left.tokens = Math.max(0, limit.tokens - use.tokens);
  if (limit.cost !== undefined)
    left.cost = round(Math.max(0, limit.cost - use.cost));
  return {
    key,
    period: use.period,
    limit: {
      ...(limit.tokens !== undefined ? { tokens: limit.tokens } : {}),
      ...(limit.cost !== undefined ? { cost: limit.cost } : {}),
    },
    used: { tokens: use.tokens, cost: round(use.cost), currency: use.currency },
    left,
    resetsAt,
  };
}

// Each name's use within its budget's current period (the UTC day for a name without a
// budget), read from the ledger once per period.
export async function periodUse(
  ledger: LedgerPort,
  config: BudgetsConfig | undefined,
  scope: Scope,
  names: string[],
  now: number,
): Promise<PeriodUse[]> {
  const rows = new Map<BudgetPeriod, UsageEntry[]>();
  const read = async (period: BudgetPeriod) => {
    let got = rows.get(period);
    if (!got) {
      const { start } = periodAt(period, now);
      got = (await ledger.readUsage(start)).filter((u) => u.at >= start);
      rows.set(period, got);
    }
    return got;
  };
  const out: PeriodUse[] = [];
  for (const name of names) {
    const budget = budgetFor(config, scope, name);
    const period = budget?.limit.period ?? "day";
    const use: PeriodUse = {
      name,
      period,
      turns: 0,
      tokens: 0,
      cost: 0,
      currency: null,
    };
    for (const u of await read(period))
      if ((scope === "agents" ? u.agent : u.user) === name) {
        use.turns += 1;
        use.tokens += u.tokens;
        use.cost += u.cost;
        use.currency ??= u.currency;
      }
    if (budget)
      use.budget = viewOf(
        budget.key,
        budget.limit,
        use,
        periodAt(period, now).end,
      );
    out.push(use);
  }
  return out;
}
