// Usage as the ledger recorded it: the token counts of each prompt answer (kept with its
// turn_end) and the cumulative cost and context size of each usage_update, summed per agent or
// per session over a period. No table of its own: the ledger's events are the record.
import type {
  LedgerEvent,
  LedgerPort,
  SessionRecord,
} from "../engine/ports.js";

export interface UsageRow {
  /** The agent's name or the session's id. */
  key: string;
  /** Left empty until sessions have users (issue 22). */
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
  by: "agent" | "session";
}

const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? v : 0;

// One session's usage in the period: answers' tokens summed, the cost's growth in it.
export function sessionUsage(
  record: SessionRecord,
  events: LedgerEvent[],
  since = 0,
): UsageRow {
  const row: UsageRow = {
    key: record.id,
    user: "",
    sessions: 1,
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cost: 0,
    currency: null,
  };
  let costBefore = 0;
  let costLast: number | undefined;
  for (const e of events) {
    const inPeriod = e.at >= since;
    if (e.kind === "turn_end" && inPeriod) {
      row.turns += 1;
      const u = (e.payload["usage"] ?? {}) as Record<string, unknown>;
      row.inputTokens += num(u["inputTokens"]);
      row.outputTokens += num(u["outputTokens"]);
      row.totalTokens += num(u["totalTokens"]);
    }
    const update = e.payload["update"] as Record<string, unknown> | undefined;
    if (e.kind !== "update" || update?.["sessionUpdate"] !== "usage_update")
      continue;
    const cost = update["cost"] as { amount?: unknown; currency?: unknown };
    if (!cost || typeof cost.amount !== "number") continue;
    if (inPeriod) costLast = cost.amount;
    else costBefore = cost.amount;
    if (typeof cost.currency === "string") row.currency = cost.currency;
  }
  row.cost = costLast === undefined ? 0 : Math.max(0, costLast - costBefore);
  return row;
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

// Every session's usage in the period, per session or summed per agent.
export async function usageReport(
  ledger: LedgerPort,
  query: UsageQuery,
): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow>();
  let cursor: string | null = null;
  do {
    const page = await ledger.listSessions({ cursor, limit: 500 });
    for (const record of page.sessions) {
      if (query.since !== undefined && record.updatedAt < query.since) continue;
      const row = sessionUsage(
        record,
        await ledger.events(record.id),
        query.since,
      );
      if (row.turns === 0 && row.cost === 0) continue;
      const key = query.by === "agent" ? record.agent : record.id;
      const had = rows.get(key);
      if (had) addInto(had, row);
      else rows.set(key, { ...row, key });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return [...rows.values()].sort((a, b) => a.key.localeCompare(b.key));
}
