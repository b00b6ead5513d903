// What the read-only reports ask: `acphub usage` (tokens and cost from the ledger) and
// `acphub nodes list` (the serve processes sharing a PostgreSQL ledger).
import { NO_USER, usageReport, type UsageRow } from "../telemetry/usage.js";
import { periodUse, type BudgetView } from "../telemetry/budget-status.js";
import { budgetClock } from "../telemetry/budget-usage.js";
import { resetText } from "../telemetry/budget-text.js";
import { DEFAULT_LEASE_MS } from "../cluster/index.js";
import type { NodeRow } from "../contracts/cluster-store.js";
import { HubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { ledgerUrl, openLedger } from "./wiring.js";
import { withLedger } from "./sessions.js";

export type { BudgetView, NodeRow, UsageRow };

/** A usage row with, for an agent or user with a budget, where it stands now. */
export type UsageBudgetRow = UsageRow & { budget?: BudgetView };

// Usage summed per agent, session or user, over all time or since a moment; an agent's or a
// user's row carries their budget now (its period's use, what is left, when it resets).
export function usageRows(
  ctx: AppContext,
  by: "agent" | "session" | "user",
  since: number | undefined,
): Promise<UsageBudgetRow[]> {
  return withLedger(ctx, async (ledger) => {
    const rows = await usageReport(ledger, {
      by,
      ...(since === undefined ? {} : { since }),
    });
    if (by === "session") return rows;
    const scope = by === "agent" ? "agents" : "users";
    const budgets = ctx.config.limits?.budget;
    const uses = await periodUse(
      ledger,
      budgets,
      scope,
      rows.map((r) => r.key),
      budgetClock()(),
    );
    return rows.map((row, i) => {
      // Turns no hub user sent have no user budget.
      const budget = row.key === NO_USER ? undefined : uses[i]?.budget;
      return budget ? { ...row, budget } : row;
    });
  });
}

// "left 800 of 1000 tokens, 0.2 of 0.5 USD cost (daily); resets 2026-12-04 00:00 UTC (in 9 h)":
// a budget for people, the command line's and the page's words alike.
export function budgetSummary(b: BudgetView, now: number): string {
  const parts: string[] = [];
  if (b.left.tokens !== undefined)
    parts.push(`${b.left.tokens} of ${b.limit.tokens} tokens`);
  if (b.left.cost !== undefined)
    parts.push(
      `${b.left.cost} of ${b.limit.cost}${b.used.currency ? ` ${b.used.currency}` : ""} cost`,
    );
  const per = b.period === "day" ? "daily" : "monthly";
  return `left ${parts.join(", ")} (${per}); resets ${resetText(b.resetsAt, now)}`;
}

// The nodes, each marked alive when it beat within the lease.
export async function clusterNodes(
  ctx: AppContext,
): Promise<(NodeRow & { alive: boolean })[]> {
  const usage = new HubError(
    "USAGE",
    "nodes are `acphub serve` processes sharing a PostgreSQL ledger: set ledger.url or ACPHUB_LEDGER_URL",
  );
  if (!/^postgres(ql)?:/.test(ledgerUrl(ctx))) throw usage;
  const ledger = await openLedger(ctx); // brings the schema up to date
  let rows: NodeRow[];
  try {
    if (!ledger.cluster) throw usage;
    rows = await ledger.cluster.listNodes();
  } finally {
    await ledger.close();
  }
  const leaseMs = ctx.config.cluster?.leaseMs ?? DEFAULT_LEASE_MS;
  return rows.map((n) => ({ ...n, alive: n.heartbeatAgeMs <= leaseMs }));
}
