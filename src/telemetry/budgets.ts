// Budgets (config limits.budget): tokens and/or cost per UTC day or month, per agent and per hub
// user. Each prompt is admitted on what the ledger holds of the current periods (every process
// on it: budget-ledger.ts reads only what is new). A spent budget refuses the next prompt; the
// turn that spends it finishes. A turn passing 80 % or 100 % earns a notice.
import type { BudgetLimit, BudgetsConfig, Config } from "../config/schema.js";
import type { BudgetPort, TurnPayer } from "../engine/budget-port.js";
import type { EngineEvents } from "../engine/events.js";
import type { NoticePayload } from "../engine/notices.js";
import type { LedgerPort } from "../engine/ports.js";
import { LedgerTally } from "./budget-ledger.js";
import {
  budgetClock,
  periodAt,
  reportedCost,
  turnTokens,
  type Spent,
} from "./budget-usage.js";
import { budgetNotice, spentError, type Applied } from "./budget-text.js";

/** A running turn: whom it counts against, how far its budgets were when it started, and what
 *  it used so far (the ledger holds it once the turn is recorded; this is for its notices). */
interface RunningTurn {
  payer: TurnPayer;
  before: number[];
  own: Spent;
  lastCost: number | undefined;
}

export class Budgets implements BudgetPort {
  private readonly ledgerUse: LedgerTally;
  private readonly running = new Map<string, RunningTurn>();
  private readonly earned = new Map<string, NoticePayload[]>();

  constructor(
    private readonly config: BudgetsConfig,
    ledger: LedgerPort,
    private readonly now: () => number = budgetClock(),
  ) {
    this.ledgerUse = new LedgerTally(ledger, now);
  }

  // What the ledger holds now (every process's turns), then each budget of the payer.
  async admit(payer: TurnPayer): Promise<void> {
    await this.ledgerUse.sync();
    this.ledgerUse.roll();
    for (const b of this.applied(payer))
      if (level(b) >= 1) throw spentError(b, this.now());
  }

  noticesAfterTurn(sessionId: string): NoticePayload[] {
    const notices = this.earned.get(sessionId) ?? [];
    this.earned.delete(sessionId);
    return notices;
  }

  /** The listener counting one agent's turns (Gateway.observe). */
  listener(agent: string): EngineEvents {
    return {
      turnStarted: (e) => {
        const payer = {
          sessionId: e.sessionId,
          agent,
          ...(e.author ? { user: e.author } : {}),
        };
        this.ledgerUse.roll();
        this.running.set(e.sessionId, {
          payer,
          before: this.applied(payer).map(level),
          own: { tokens: 0, cost: 0, currency: null },
          lastCost: this.ledgerUse.lastCost(e.sessionId),
        });
      },
      turnEvent: (sessionId, event) => {
        const turn = this.running.get(sessionId);
        if (!turn || event.type !== "session_update") return;
        const cost = reportedCost(event.update as Record<string, unknown>);
        if (!cost) return;
        turn.own.cost += Math.max(0, cost.amount - (turn.lastCost ?? 0));
        turn.own.currency ??= cost.currency;
        turn.lastCost = cost.amount;
      },
      turnEnded: (e) => {
        const turn = this.running.get(e.sessionId);
        this.running.delete(e.sessionId);
        if (!turn) return;
        turn.own.tokens += turnTokens(e.usage);
        if (e.error === undefined)
          this.earned.set(e.sessionId, this.notices(turn));
      },
    };
  }

  // The notices of budgets the turn took past 80 % or 100 %.
  private notices(turn: RunningTurn): NoticePayload[] {
    const out: NoticePayload[] = [];
    this.ledgerUse.roll();
    this.applied(turn.payer, turn.own).forEach((b, i) => {
      const notice = budgetNotice(b, turn.before[i] ?? 0, level(b), this.now());
      if (notice) out.push(notice);
    });
    return out;
  }

  // The budgets that apply to a payer (its agent's, its user's), with what they used (plus
  // `own`, a running turn's use not yet read from the ledger).
  private applied(payer: TurnPayer, own?: Spent): Applied[] {
    const out: Applied[] = [];
    const pick = (scope: "agents" | "users", name: string) => {
      const table = this.config[scope] ?? {};
      const key = name in table ? name : "*";
      const limit: BudgetLimit | undefined = table[key];
      if (!limit) return;
      const period = limit.period ?? "day";
      const { end } = periodAt(period, this.now());
      const spent = this.ledgerUse.spent(`${scope}:${name}:${period}`);
      out.push({
        scope,
        name,
        key,
        limit,
        period,
        resetsAt: end,
        spent: own
          ? {
              tokens: spent.tokens + own.tokens,
              cost: spent.cost + own.cost,
              currency: spent.currency ?? own.currency,
            }
          : spent,
      });
    };
    pick("agents", payer.agent);
    if (payer.user) pick("users", payer.user);
    return out;
  }
}

// How much of a budget is used: the larger of its tokens' and its cost's share.
function level(b: Applied): number {
  const t = b.limit.tokens ? b.spent.tokens / b.limit.tokens : 0;
  const c = b.limit.cost ? b.spent.cost / b.limit.cost : 0;
  return Math.max(t, c);
}

// The budgets config asks for, or undefined when it names none.
export function budgetsOf(
  config: Config,
  ledger: LedgerPort,
  now?: () => number,
): Budgets | undefined {
  const b = config.limits?.budget;
  const any = (t?: Record<string, unknown>) => !!t && Object.keys(t).length > 0;
  if (!b || (!any(b.agents) && !any(b.users))) return undefined;
  return new Budgets(b, ledger, now);
}
