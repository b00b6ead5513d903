// Budgets (config limits.budget): tokens and/or cost per UTC day or month, per agent and per hub
// user. Each prompt is admitted on what the ledger's usage table holds of the current periods
// (every process on it: budget-ledger.ts reads only what is new; deleting sessions takes
// nothing from it). A spent budget refuses the next prompt; the
// turn that spends it finishes. A turn passing 80 % or 100 % earns a notice.
import type { BudgetLimit, BudgetsConfig, Config } from "../config/schema.js";
import type { BudgetPort, TurnPayer } from "../engine/budget-port.js";
import type { EngineEvents } from "../engine/events.js";
import type { NoticePayload } from "../engine/notices.js";
import type { LedgerPort } from "../engine/ports.js";
import { LedgerTally } from "./budget-ledger.js";
import { budgetClock, periodAt } from "./budget-usage.js";
import { budgetNotice, spentError, type Applied } from "./budget-text.js";

/** A running turn: whom it counts against, and how far its budgets were when it started. */
interface RunningTurn {
  payer: TurnPayer;
  before: number[];
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

  // What the ledger's usage table holds now (every process's turns), then each budget of the
  // payer.
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
        });
      },
      turnEnded: (e) => {
        const turn = this.running.get(e.sessionId);
        this.running.delete(e.sessionId);
        // The row the turn recorded counts at once (the next sync skips it).
        this.ledgerUse.roll();
        if (e.recorded) this.ledgerUse.count(e.recorded);
        if (turn && e.error === undefined)
          this.earned.set(e.sessionId, this.notices(turn));
      },
    };
  }

  // The notices of budgets the turn took past 80 % or 100 %.
  private notices(turn: RunningTurn): NoticePayload[] {
    const out: NoticePayload[] = [];
    this.applied(turn.payer).forEach((b, i) => {
      const notice = budgetNotice(b, turn.before[i] ?? 0, level(b), this.now());
      if (notice) out.push(notice);
    });
    return out;
  }

  // The budgets that apply to a payer (its agent's, its user's), with what they used.
  private applied(payer: TurnPayer): Applied[] {
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
        spent,
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
