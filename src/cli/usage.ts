// `acphub usage`: the tokens and cost agents reported, summed per agent or per session from
// the ledger, over all time or since a moment.
import {
  budgetSummary,
  usageRows,
  type UsageBudgetRow,
} from "../app/reports.js";
import { sinceOf } from "../app/since.js";
import { HubError } from "../shared/errors.js";
import { cliContext } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, outList, type JsonOptions } from "./guard.js";

export interface UsageOptions extends JsonOptions {
  since?: string;
  by?: string;
}

// One row for people; a budget's line (left, resets) under its agent's or user's row.
function line(r: UsageBudgetRow): string {
  const cost = r.currency ? `  ${r.cost.toFixed(4)} ${r.currency}` : "";
  const budget = r.budget
    ? `${"".padEnd(24)} budget: ${budgetSummary(r.budget, Date.now())}\n`
    : "";
  return `${r.key.padEnd(24)} ${String(r.turns).padStart(5)} turns  ${r.inputTokens} in  ${r.outputTokens} out  ${r.totalTokens} total tokens${cost}\n${budget}`;
}

export function usageCommand(options: UsageOptions): Promise<ExitCode> {
  return guarded(async () => {
    const by = options.by ?? "agent";
    if (by !== "agent" && by !== "session" && by !== "user")
      throw new HubError("USAGE", `--by ${by}: give agent, session or user`);
    const since = sinceOf(options.since);
    const rows = await usageRows(cliContext(options), by, since);
    if (!options.json) return outList(false, rows, "no usage recorded\n", line);
    outList(true, rows.map(jsonRow), "", () => "");
  });
}

// A row as --json prints it: a budget's resetsAt as an ISO time, as a budget refusal gives it.
function jsonRow(r: UsageBudgetRow): unknown {
  if (!r.budget) return r;
  const resetsAt = new Date(r.budget.resetsAt).toISOString();
  return { ...r, budget: { ...r.budget, resetsAt } };
}
