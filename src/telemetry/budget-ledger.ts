// What the ledger holds of the current UTC day and month, per agent and per hub user, kept up to
// date by reading only what it gained since the last look: the sessions written since then
// (newest first, an indexed listing) and each one's events after the last one read. Every
// process on one ledger (acp, serve, run, a cluster's nodes) sees the others' usage this way.
import type { LedgerPort, SessionRecord } from "../engine/ports.js";
import {
  BUDGET_PERIODS,
  periodAt,
  sessionUses,
  type BudgetPeriod,
  type SessionWalk,
  type Spent,
  type Use,
} from "./budget-usage.js";

/** Sessions written this long before the last look are read again if they changed: a batch is
 *  stamped when its events are appended, and may commit (or come from a node whose clock is
 *  behind) a little later. */
export const LOOK_BACK_MS = 60_000;

/** How far one session's events were read, and the record as it was then. */
interface Cursor extends SessionWalk {
  seq: number;
  seen: string;
}

// What tells a session changed: its stamp alone does not (two writes in one millisecond keep it).
const version = (r: SessionRecord) =>
  `${r.updatedAt}:${r.eventCount}:${r.bytes}`;

export class LedgerTally {
  private readonly tally = new Map<string, Spent>();
  private readonly starts = new Map<BudgetPeriod, number>();
  private readonly cursors = new Map<string, Cursor>();
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

  /** A session's last reported cumulative cost, as far as the ledger was read. */
  lastCost(sessionId: string): number | undefined {
    return this.cursors.get(sessionId)?.lastCost;
  }

  // Reads what the ledger gained; one read at a time (two would count the same events twice).
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
    let cursor: string | null = null;
    do {
      const page = await this.ledger.listSessions({ cursor, limit: 200 });
      for (const record of page.sessions) {
        if (record.updatedAt < from) return this.looked(began);
        await this.readSession(record);
      }
      cursor = page.nextCursor;
    } while (cursor);
    this.looked(began);
  }

  private looked(at: number): void {
    this.lookedAt = at;
  }

  // One session's events after the last one read, counted.
  private async readSession(record: SessionRecord): Promise<void> {
    const had = this.cursors.get(record.id);
    if (had && had.seen === version(record)) return;
    const events = await this.ledger.events(record.id, {
      afterSeq: had?.seq ?? 0,
    });
    const walk: SessionWalk = had ? { ...had } : {};
    sessionUses(record.agent, events, (u) => this.count(u), walk);
    this.cursors.set(record.id, {
      ...walk,
      seq: events.at(-1)?.seq ?? had?.seq ?? 0,
      seen: version(record),
    });
  }

  // Adds a use to its agent and user, in each period it falls in.
  private count(u: Use): void {
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
