// Usage as the ledger recorded it: the token counts of each prompt answer (kept with its
// turn_end) and the cumulative cost and context size of each usage_update, summed per agent or
// per session over a period. No table of its own: the ledger's events are the record.
import type {
  LedgerEvent,
  LedgerPort,
  SessionRecord,
} from "../engine/ports.js";

export interface UsageRow {
  /** The agent's name, the session's id, or the user's name. */
  key: string;
  /** The hub user who prompted (by user); else empty. */
  user: string;
  sessions: number;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Cost the agent reported in the period (the growth of its cumulative session cost). */
  cost: number;
  currency: string | null;
}

export interface UsageQuery {
  /** Only usage recorded at or after this time (ms since the epoch). */
  since?: number;
  by: "agent" | "session" | "user";
}

/** The key of turns no hub user sent (acphub acp, run, chat, serve's token holder). */
export const NO_USER = "(no user)";

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : 0;

// One session's usage in the period: answers' tokens summed, the cost's growth in it.
export function sessionUsage(
  record: SessionRecord,
  events: LedgerEvent[],
  since = 0,
): UsageRow {
  const row = emptyRow(record.id);
  let costBefore = 0;
  let costLast: number | undefined;
  for (const e of events) {
    const inPeriod = e.at >= since;
    if (e.kind === "turn_end" && inPeriod) countTurn(row, e);
    const cost = reportedCost(e);
    if (!cost) continue;
    if (inPeriod) costLast = cost.amount;
    else costBefore = cost.amount;
    if (typeof cost.currency === "string") row.currency = cost.currency;
  }
  row.cost = costLast === undefined ? 0 : Math.max(0, costLast - costBefore);
  return row;
}

// A prompt's answer (its turn_end): one more turn, and the tokens it reported.
function countTurn(row: UsageRow, e: LedgerEvent): void {
  row.turns += 1;
  const u = (e.payload["usage"] ?? {}) as Record<string, unknown>;
  row.inputTokens += num(u["inputTokens"]);
  row.outputTokens += num(u["outputTokens"]);
  row.totalTokens += num(u["totalTokens"]);
}

// The session's cumulative cost as a usage_update reported it; none for any other event.
function reportedCost(
  e: LedgerEvent,
): { amount: number; currency?: unknown } | undefined {
  const update = e.payload["update"] as Record<string, unknown> | undefined;
  if (e.kind !== "update" || update?.["sessionUpdate"] !== "usage_update")
    return undefined;
  const cost = update["cost"] as { amount?: unknown; currency?: unknown };
  return cost && typeof cost.amount === "number"
    ? { amount: cost.amount, currency: cost.currency }
    : undefined;
}

// Adds `b` into `a` (the same agent).
function addInto(a: UsageRow, b: UsageRow): void {
  a.sessions += b.sessions;
  a.turns += b.turns;
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.totalTokens += b.totalTokens;
  a.cost += b.cost;
  a.currency ??= b.currency;
}

// One session's usage in the period split by the user who sent each turn's prompt: each turn's
// tokens, and each growth of the reported cost, go to that turn's user.
export function usageByUser(
  events: LedgerEvent[],
  since = 0,
): Map<string, UsageRow> {
  const rows = new Map<string, UsageRow>();
  const rowOf = (user: string) => {
    let row = rows.get(user);
    if (!row) {
      row = { ...emptyRow(user), user: user === NO_USER ? "" : user };
      rows.set(user, row);
    }
    return row;
  };
  let user = NO_USER;
  let last = 0;
  for (const e of events) {
    if (e.kind === "prompt") {
      const u = e.payload["author"];
      user = typeof u === "string" && u ? u : NO_USER;
      continue;
    }
    if (e.kind === "turn_end" && e.at >= since) countTurn(rowOf(user), e);
    const cost = reportedCost(e);
    if (!cost) continue;
    if (e.at >= since) {
      const row = rowOf(user);
      row.cost += Math.max(0, cost.amount - last);
      if (typeof cost.currency === "string") row.currency = cost.currency;
    }
    last = cost.amount;
  }
  return rows;
}

// A row with nothing counted yet (one session).
function emptyRow(key: string): UsageRow {
  return {
    key,
    user: "",
    sessions: 1,
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cost: 0,
    currency: null,
  };
}

// Every session's usage in the period, per session, or summed per agent or per user.
export async function usageReport(
  ledger: LedgerPort,
  query: UsageQuery,
): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow>();
  const into = (key: string, row: UsageRow) => {
    if (row.turns === 0 && row.cost === 0) return;
    const had = rows.get(key);
    if (had) addInto(had, row);
    else rows.set(key, { ...row, key });
  };
  let cursor: string | null = null;
  do {
    const page = await ledger.listSessions({ cursor, limit: 500 });
    for (const record of page.sessions) {
      if (query.since !== undefined && record.updatedAt < query.since) continue;
      const events = await ledger.events(record.id);
      if (query.by === "user") {
        for (const [user, row] of usageByUser(events, query.since))
          into(user, row);
        continue;
      }
      const row = sessionUsage(record, events, query.since);
      into(query.by === "agent" ? record.agent : record.id, row);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return [...rows.values()].sort((a, b) => a.key.localeCompare(b.key));
}
