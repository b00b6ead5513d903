// What one turn used, as it is recorded in the ledger's usage table (issue 34): the tokens of
// its prompt answer and the growth of the session's cumulative cost that the agent reported
// while it ran, with the user who sent it. Recorded as a turn ends, never derived from a
// session's events afterwards: a fork's or an import's copied events are not usage.
import type { RunEvent } from "../contracts/events.js";
import type { LedgerPort, UsageEntry } from "./ledger-port.js";

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

// A prompt answer's tokens as budgets count them: its totalTokens, else input plus output.
export function turnTokens(usage: Record<string, unknown> | null | undefined) {
  if (!usage) return 0;
  return (
    num(usage["totalTokens"]) ??
    (num(usage["inputTokens"]) ?? 0) + (num(usage["outputTokens"]) ?? 0)
  );
}

/** A usage_update's cumulative session cost, when it reports one. */
export function reportedCost(
  update: Record<string, unknown>,
): { amount: number; currency: string | null } | undefined {
  if (update["sessionUpdate"] !== "usage_update") return undefined;
  const cost = update["cost"] as { amount?: unknown; currency?: unknown };
  const amount = num(cost?.amount);
  if (amount === undefined) return undefined;
  return {
    amount,
    currency: typeof cost.currency === "string" ? cost.currency : null,
  };
}

/** Who ran a turn and where it is: what a usage row names besides the amounts. */
export interface TurnOf {
  sessionId: string;
  agent: string;
  user?: string | undefined;
  /** The prompt's sequence number (the turn's identity in the usage table). */
  promptSeq: number | string;
}

// The usage row of a turn from its answer's usage and its cost growth.
export function usageEntry(
  turn: TurnOf,
  usage: Record<string, unknown> | null | undefined,
  cost: { amount: number; currency: string | null },
  at = Date.now(),
): UsageEntry {
  const u = usage ?? {};
  return {
    turn: `${turn.sessionId}:${turn.promptSeq}`,
    sessionId: turn.sessionId,
    agent: turn.agent,
    user: turn.user ?? null,
    at,
    inputTokens: num(u["inputTokens"]) ?? 0,
    outputTokens: num(u["outputTokens"]) ?? 0,
    totalTokens: num(u["totalTokens"]) ?? 0,
    tokens: turnTokens(usage),
    cost: cost.amount,
    currency: cost.currency,
  };
}

/**
 * Counts the cost a running turn reported: each growth of the session's cumulative cost, from
 * the last amount reported before the turn (`base`, asked only when the turn reports one).
 */
export class CostMeter {
  private readonly amounts: number[] = [];
  private currency: string | null = null;

  // One event of the turn: a usage_update's cumulative cost is kept.
  heard(event: RunEvent): void {
    if (event.type !== "session_update") return;
    const cost = reportedCost(event.update as Record<string, unknown>);
    if (!cost) return;
    this.amounts.push(cost.amount);
    this.currency ??= cost.currency;
  }

  /** The last cumulative amount the turn reported, if any. */
  get last(): number | undefined {
    return this.amounts.at(-1);
  }

  // The turn's cost: the sum of each growth, counted from `base()` (a fall counts nothing).
  async total(
    base: () => Promise<number | undefined>,
  ): Promise<{ amount: number; currency: string | null }> {
    if (this.amounts.length === 0) return { amount: 0, currency: null };
    let previous = (await base()) ?? 0;
    let amount = 0;
    for (const a of this.amounts) {
      amount += Math.max(0, a - previous);
      previous = a;
    }
    return { amount, currency: this.currency };
  }
}

// The session's last cumulative cost recorded before `beforeSeq` (a fork's copied events
// included: the agent's cumulative cost of a fork goes on from its parent's).
export async function costBefore(
  ledger: LedgerPort,
  sessionId: string,
  beforeSeq: number,
): Promise<number | undefined> {
  const stored = await ledger.read(sessionId, { uptoSeq: beforeSeq - 1 });
  for (let i = stored.length - 1; i >= 0; i--) {
    const e = stored[i]!;
    if (e.kind !== "update" || !e.text.includes("usage_update")) continue;
    const update = (JSON.parse(e.text) as { update?: Record<string, unknown> })
      .update;
    const cost = update && reportedCost(update);
    if (cost) return cost.amount;
  }
  return undefined;
}

/** What recording a turn's usage needs. */
export interface UsageRecording {
  ledger: LedgerPort;
  turn: TurnOf;
  meter: CostMeter;
  usage: Record<string, unknown> | null | undefined;
  /** The session's last cumulative cost when known here; else read from the ledger. */
  knownCost: number | undefined;
}

// Records a turn's usage row; the entry recorded (budgets count it at once).
export async function recordTurnUsage(r: UsageRecording): Promise<UsageEntry> {
  const cost = await r.meter.total(async () =>
    r.knownCost !== undefined
      ? r.knownCost
      : costBefore(r.ledger, r.turn.sessionId, Number(r.turn.promptSeq)),
  );
  const entry = usageEntry(r.turn, r.usage, cost);
  await r.ledger.recordUsage(entry);
  return entry;
}
