// What people are told about a budget: the error refusing a prompt once it is spent, and the
// notices of a turn taking it past 80 % or 100 % — each naming the budget, its use and when it
// resets.
import type { BudgetLimit } from "../config/schema.js";
import type { NoticePayload } from "../engine/notices.js";
import { refusal } from "../engine/admission.js";
import type { HubError } from "../shared/errors.js";
import type { BudgetPeriod, Spent } from "./budget-usage.js";

/** One budget as it applies to a turn: whose, its limit, what it used, when it resets. */
export interface Applied {
  scope: "agents" | "users";
  /** The agent's or user's name. */
  name: string;
  /** The config key it comes from: the name, or "*". */
  key: string;
  limit: BudgetLimit;
  period: BudgetPeriod;
  /** When the period ends (ms since the epoch, UTC). */
  resetsAt: number;
  spent: Spent;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

// "the daily budget of agent mock (limits.budget.agents.mock)"
function title(b: Applied): string {
  const who = b.scope === "agents" ? "agent" : "user";
  const key = /^[\w.@-]+$/.test(b.key)
    ? `.${b.key}`
    : `[${JSON.stringify(b.key)}]`;
  const per = b.period === "day" ? "daily" : "monthly";
  return `the ${per} budget of ${who} ${b.name} (limits.budget.${b.scope}${key})`;
}

// "150 of 100 tokens, 0.6 of 0.5 USD"
function usedText(b: Applied): string {
  const parts: string[] = [];
  if (b.limit.tokens !== undefined)
    parts.push(`${b.spent.tokens} of ${b.limit.tokens} tokens`);
  if (b.limit.cost !== undefined)
    parts.push(
      `${round(b.spent.cost)} of ${b.limit.cost}${b.spent.currency ? ` ${b.spent.currency}` : ""} cost`,
    );
  return parts.join(", ");
}

// "2026-12-02 00:00 UTC (in 5 h 44 min)"
export function resetText(at: number, now: number): string {
  const when = `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const mins = Math.max(1, Math.ceil((at - now) / 60_000));
  const h = Math.floor(mins / 60);
  const m = mins % 60;
  const d = Math.floor(h / 24);
  const span =
    d >= 2 ? `${d} days` : h > 0 ? `${h} h${m ? ` ${m} min` : ""}` : `${m} min`;
  return `${when} (in ${span})`;
}

// The refusal of a prompt whose budget is spent; its details go to the editor as data.budget.
export function spentError(b: Applied, now: number): HubError {
  return refusal(
    "budget",
    `${title(b)} is spent: ${usedText(b)} used; it resets at ${resetText(b.resetsAt, now)}`,
    {
      retryable: true,
      retryAfterS: Math.ceil((b.resetsAt - now) / 1000),
      details: {
        budget: {
          scope: b.scope === "agents" ? "agent" : "user",
          name: b.name,
          key: b.key,
          period: b.period,
          limit: { ...b.limit, period: b.period },
          used: {
            tokens: b.spent.tokens,
            cost: round(b.spent.cost),
            ...(b.spent.currency ? { currency: b.spent.currency } : {}),
          },
          resetsAt: new Date(b.resetsAt).toISOString(),
        },
      },
    },
  );
}

// The notice a turn earned by taking a budget from `before` to `after` (shares of it).
export function budgetNotice(
  b: Applied,
  before: number,
  after: number,
  now: number,
): NoticePayload | undefined {
  const reset = resetText(b.resetsAt, now);
  if (before < 1 && after >= 1)
    return {
      severity: "warning",
      title: `${title(b)} is spent (${usedText(b)}): the next prompt is refused until ${reset}`,
    };
  if (before < 0.8 && after >= 0.8)
    return {
      severity: "warning",
      title: `${Math.floor(after * 100)} % of ${title(b)} is used (${usedText(b)}); it resets at ${reset}`,
    };
  return undefined;
}
