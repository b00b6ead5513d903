// Budgets (config limits.budget): tokens and/or cost per UTC day or month, per agent and per hub
// user. What the ledger holds of the current periods is read once, then every turn's usage is
// counted as it happens (per process). A spent budget refuses the next prompt; the turn that
// spends it finishes. A turn passing 80 % or 100 % earns a notice.
import type { BudgetLimit, BudgetsConfig, Config } from "../config/schema.js";
import type { BudgetPort, TurnPayer } from "../engine/budget-port.js";
import type { EngineEvents } from "../engine/events.js";
import type { NoticePayload } from "../engine/notices.js";
import type { LedgerPort } from "../engine/ports.js";
import {
  BUDGET_PERIODS,
  budgetClock,
  lastCostOf,
  periodAt,
  reportedCost,
  turnTokens,
  usesSince,
  type BudgetPeriod,
  type Spent,
  type Use,
} from "./budget-usage.js";
import { budgetNotice, spentError, type Applied } from "./budget-text.js";

/** A running turn: whom it counts against, and how far its budgets were when it started. */
interface RunningTurn {
  payer: TurnPayer;
  before: number[];
}

export class Budgets implements BudgetPort {
  private readonly tally = new Map<string, Spent>();
  private readonly starts = new Map<BudgetPeriod, number>();
  private readonly lastCost = new Map<string, number>();
  private readonly running = new Map<string, RunningTurn>();
  private readonly earned = new Map<string, NoticePayload[]>();
  private seeded: Promise<void> | undefined;

  constructor(
    private readonly config: BudgetsConfig,
    private readonly ledger: LedgerPort,
    private readonly now: () => number = budgetClock(),
  ) {}

  async admit(payer: TurnPayer): Promise<void> {
    // A ledger that failed to answer is asked again by the next prompt.
    this.seeded ??= this.seed().catch((error: unknown) => {
      this.seeded = undefined;
      throw error;
    });
    await this.seeded;
    if (!this.lastCost.has(payer.sessionId)) {
      const last = await lastCostOf(this.ledger, payer.sessionId, payer.agent);
      if (last !== undefined && !this.lastCost.has(payer.sessionId))
        this.lastCost.set(payer.sessionId, last);
    }
    this.roll();
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
        this.roll();
        this.running.set(e.sessionId, {
          payer,
          before: this.applied(payer).map(level),
        });
      },
      turnEvent: (sessionId, event) => {
        const turn = this.running.get(sessionId);
        if (!turn || event.type !== "session_update") return;
        const cost = reportedCost(event.update as Record<string, unknown>);
        if (!cost) return;
        const growth = Math.max(
          0,
          cost.amount - (this.lastCost.get(sessionId) ?? 0),
        );
        this.lastCost.set(sessionId, cost.amount);
        this.count(turn.payer, {
          tokens: 0,
          cost: growth,
          currency: cost.currency,
        });
      },
      turnEnded: (e) => {
        const turn = this.running.get(e.sessionId);
        this.running.delete(e.sessionId);
        if (!turn) return;
        const tokens = turnTokens(e.usage);
        this.count(turn.payer, { tokens, cost: 0, currency: null });
        if (e.error === undefined)
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

  // Adds a use to the payer's agent and user, in each period.
  private count(payer: TurnPayer, use: Spent): void {
    this.roll();
    const add = (key: string) => {
      for (const kind of BUDGET_PERIODS) {
        const spent = this.spentOf(`${key}:${kind}`);
        spent.tokens += use.tokens;
        spent.cost += use.cost;
        spent.currency ??= use.currency;
      }
    };
    add(`agents:${payer.agent}`);
    if (payer.user) add(`users:${payer.user}`);
  }

  private spentOf(key: string): Spent {
    let spent = this.tally.get(key);
    if (!spent) {
      spent = { tokens: 0, cost: 0, currency: null };
      this.tally.set(key, spent);
    }
    return spent;
  }

  // A new day or month starts from nothing: the counts of the one before are dropped.
  private roll(): void {
    for (const kind of BUDGET_PERIODS) {
      const { start } = periodAt(kind, this.now());
      if (this.starts.get(kind) === start) continue;
      if (this.starts.has(kind))
        for (const key of [...this.tally.keys()])
          if (key.endsWith(`:${kind}`)) this.tally.delete(key);
      this.starts.set(kind, start);
    }
  }

  // What the ledger holds of the current day and month (read once per process).
  private async seed(): Promise<void> {
    this.roll();
    const since = Math.min(...this.starts.values());
    const uses: Use[] = [];
    const last = await usesSince(this.ledger, since, (u) => uses.push(u));
    for (const [id, cost] of last) this.lastCost.set(id, cost);
    for (const u of uses)
      for (const kind of BUDGET_PERIODS) {
        if (u.at < this.starts.get(kind)!) continue;
        const keys = [
          `agents:${u.agent}`,
          ...(u.user ? [`users:${u.user}`] : []),
        ];
        for (const key of keys) {
          const spent = this.spentOf(`${key}:${kind}`);
          spent.tokens += u.tokens;
          spent.cost += u.cost;
          spent.currency ??= u.currency;
        }
      }
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
      const spent = this.tally.get(`${scope}:${name}:${period}`);
      out.push({
        scope,
        name,
        key,
        limit,
        period,
        resetsAt: end,
        spent: spent ?? { tokens: 0, cost: 0, currency: null },
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
