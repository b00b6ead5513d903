// Usage as the ledger's usage table recorded it (issue 34): one row per turn that ran, with its
// answer's token counts and the growth of the session's cumulative cost during it, summed per
// agent, per session or per user over a period. Rows outlive their sessions: a deleted session's
// turns still count, and a fork's or an import's copied events never do.
import type { LedgerPort, StoredUsage } from "../engine/ports.js";

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

// The row a usage entry adds to, by the query's grouping.
function keyOf(u: StoredUsage, by: UsageQuery["by"]): string {
  if (by === "agent") return u.agent;
  if (by === "session") return u.sessionId;
  return u.user ?? NO_USER;
}

// Every recorded turn in the period, summed per agent, per session or per user.
export async function usageReport(
  ledger: LedgerPort,
  query: UsageQuery,
): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow & { ids: Set<string> }>();
  for (const u of await ledger.readUsage(query.since ?? 0)) {
    const key = keyOf(u, query.by);
    let row = rows.get(key);
    if (!row) {
      row = {
        key,
        user: query.by === "user" ? (u.user ?? "") : "",
        sessions: 0,
        turns: 0,
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        cost: 0,
        currency: null,
        ids: new Set(),
      };
      rows.set(key, row);
    }
    row.ids.add(u.sessionId);
    row.turns += 1;
    row.inputTokens += u.inputTokens;
    row.outputTokens += u.outputTokens;
    row.totalTokens += u.totalTokens;
    row.cost += u.cost;
    row.currency ??= u.currency;
  }
  return [...rows.values()]
    .map(({ ids, ...row }) => ({ ...row, sessions: ids.size }))
    .sort((a, b) => a.key.localeCompare(b.key));
}
