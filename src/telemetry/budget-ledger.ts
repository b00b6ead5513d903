// What the ledger's usage table holds of the current UTC day and month, per agent and per hub
// user, kept up to date by reading only the rows recorded since the last look (with a look-back
// for rows committed late). Every process on one ledger (acp, serve, run, a cluster's nodes)
// sees the others' usage this way, and deleting sessions takes nothing away from it: the table
// is not the sessions' events (issue 34).
import type { LedgerPort, UsageEntry } from "../engine/ports.js";
import {
  BUDGET_PERIODS,
  periodAt,
  type BudgetPeriod,
  type Spent,
} from "./budget-usage.js";

/** Rows stamped this long before the last look are read again: a row is stamped when its turn
 *  ends, and may commit (or come from a node whose clock is behind) a little later. */
export const LOOK_BACK_MS = 60_000;

export class LedgerTally {
  private readonly tally = new Map<string, Spent>();
  private readonly starts = new Map<BudgetPeriod, number>();
  /** The rows counted, by turn, with their stamps (those older than a look's start go). */
  private readonly counted = new Map<string, number>();
  private lookedAt: number | undefined;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: LedgerPort,
    private readonly now: () => number,
  ) {}

  /** Used so far in the current period: `key` is `agents:NAME:day`, `users:NAME:month`, …. */
  spent(key: string): Spent {
    return this.tally.get(key) ?? { tokens: 0, cost: 0, currency: null };
  }

  // Reads what the ledger gained; one read at a time.
  sync(): Promise<void> {
    const next = this.syncing.then(() => this.readNew());
    this.syncing = next.catch(() => undefined);
    return next;
  }

  private async readNew(): Promise<void> {
    this.roll();
    const began = Date.now();
    const monthStart = Math.min(...this.starts.values());
    const from =
      this.lookedAt === undefined
        ? monthStart
        : Math.max(monthStart, this.lookedAt - LOOK_BACK_MS);
    for (const row of await this.ledger.readUsage(from)) this.count(row);
    for (const [turn, at] of this.counted)
      if (at < from) this.counted.delete(turn);
    this.lookedAt = began;
  }

  // Adds a turn's row to its agent and user, in each period it falls in; once per turn.
  count(u: UsageEntry): void {
    if (this.counted.has(u.turn)) return;
    this.counted.set(u.turn, u.at);
    for (const kind of BUDGET_PERIODS) {
      if (u.at < this.starts.get(kind)!) continue;
      const keys = [
        `agents:${u.agent}`,
        ...(u.user ? [`users:${u.user}`] : []),
      ];
      for (const key of keys) {
        let spent = this.tally.get(`${key}:${kind}`);
        if (!spent) {
          spent = { tokens: 0, cost: 0, currency: null };
          this.tally.set(`${key}:${kind}`, spent);
        }
        spent.tokens += u.tokens;
        spent.cost += u.cost;
        spent.currency ??= u.currency;
      }
    }
  }

  /** A new day or month starts from nothing: the counts of the one before are dropped. */
  roll(): void {
    for (const kind of BUDGET_PERIODS) {
      const { start } = periodAt(kind, this.now());
      if (this.starts.get(kind) === start) continue;
      if (this.starts.has(kind))
        for (const key of [...this.tally.keys()])
          if (key.endsWith(`:${kind}`)) this.tally.delete(key);
      this.starts.set(kind, start);
    }
  }
}
