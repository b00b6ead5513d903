// The usage table (SQLite schema 6, PostgreSQL schema 8; issue 34): one row per turn that ran,
// apart from the sessions' events, so that deleting, trimming or expiring a session never gives
// a budget back. Here: its DDL in each dialect, its insert and read, the checks of a row read
// back, and the one-time fill from the events of the sessions a ledger held before it existed.
import { z } from "zod";
import type { StoredUsage, UsageEntry } from "../engine/ledger-port.js";
import { reportedCost, usageEntry, type TurnOf } from "../engine/turn-usage.js";

// The table in a dialect: its name, the id column's type, the cost's type.
export function usageTableSql(name: string, id: string, real: string): string {
  return `CREATE TABLE ${name} (
     id ${id},
     turn TEXT NOT NULL UNIQUE,
     session_id TEXT NOT NULL,
     agent TEXT NOT NULL,
     user_name TEXT,
     at BIGINT NOT NULL,
     input_tokens BIGINT NOT NULL,
     output_tokens BIGINT NOT NULL,
     total_tokens BIGINT NOT NULL,
     tokens BIGINT NOT NULL,
     cost ${real} NOT NULL,
     currency TEXT
   );
   CREATE INDEX ${name}_at ON ${name} (at);`;
}

const COLUMNS = [
  "turn",
  "session_id",
  "agent",
  "user_name",
  "at",
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "tokens",
  "cost",
  "currency",
];

/** The insert of one row; a turn already recorded is left as it is. `param(n)` from 1. */
export function insertUsage(
  table: string,
  param: (n: number) => string,
): string {
  const marks = COLUMNS.map((_, i) => param(i + 1)).join(", ");
  return `INSERT INTO ${table} (${COLUMNS.join(", ")}) VALUES (${marks})
    ON CONFLICT (turn) DO NOTHING`;
}

// The insert's arguments, in COLUMNS order.
export function usageArgs(e: UsageEntry): unknown[] {
  return [
    e.turn,
    e.sessionId,
    e.agent,
    e.user,
    e.at,
    e.inputTokens,
    e.outputTokens,
    e.totalTokens,
    e.tokens,
    e.cost,
    e.currency,
  ];
}

/** The read of every row from a time on (`param(1)`), oldest first. */
export function selectUsage(table: string, param: (n: number) => string) {
  return `SELECT * FROM ${table} WHERE at >= ${param(1)} ORDER BY id`;
}

const int = z
  .union([z.number(), z.string().regex(/^-?\d+$/)])
  .transform(Number);
const usageRow = z.object({
  id: int,
  turn: z.string(),
  session_id: z.string(),
  agent: z.string(),
  user_name: z.string().nullable(),
  at: int,
  input_tokens: int,
  output_tokens: int,
  total_tokens: int,
  tokens: int,
  cost: z.union([z.number(), z.string()]).transform(Number),
  currency: z.string().nullable(),
});

// A row read back; a damaged one is skipped.
export function toUsage(row: unknown): StoredUsage | undefined {
  const parsed = usageRow.safeParse(row);
  if (!parsed.success || !Number.isFinite(parsed.data.cost)) return undefined;
  const r = parsed.data;
  return {
    id: r.id,
    turn: r.turn,
    sessionId: r.session_id,
    agent: r.agent,
    user: r.user_name,
    at: r.at,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    totalTokens: r.total_tokens,
    tokens: r.tokens,
    cost: r.cost,
    currency: r.currency,
  };
}

/** What the fill reads of one session. */
export interface FillSession {
  id: string;
  agent: string;
  createdAt: number;
}

/** The events the fill reads: prompts, turn ends, and updates that may report a cost. */
export const FILL_WHERE = (payload: string) =>
  `(kind IN ('prompt', 'turn_end') OR (kind = 'update' AND ${payload} LIKE '%usage_update%'))`;

// The turns a session recorded before the usage table existed, as rows: each turn_end's tokens
// and the cost growth since its prompt, for its prompt's author. Events older than the session
// (a fork's or an import's copies) are not its usage: the session they came from counts them.
export function usageOfEvents(
  session: FillSession,
  events: { seq: number; kind: string; text: string; at: number }[],
): UsageEntry[] {
  const rows: UsageEntry[] = [];
  let turn: (TurnOf & { cost: number; currency: string | null }) | undefined;
  let last = 0;
  for (const e of events) {
    const payload = parse(e.text);
    if (!payload) continue;
    if (e.kind === "prompt") {
      const author = payload["author"];
      turn = {
        sessionId: session.id,
        agent: session.agent,
        ...(typeof author === "string" && author ? { user: author } : {}),
        promptSeq: e.seq,
        cost: 0,
        currency: null,
      };
    } else if (e.kind === "update") {
      const cost = reportedCost(
        (payload["update"] ?? {}) as Record<string, unknown>,
      );
      if (!cost) continue;
      if (turn) turn.cost += Math.max(0, cost.amount - last);
      if (turn) turn.currency ??= cost.currency;
      last = cost.amount;
    } else if (e.kind === "turn_end" && turn) {
      if (e.at >= session.createdAt)
        rows.push(
          usageEntry(
            turn,
            payload["usage"] as Record<string, unknown> | undefined,
            { amount: turn.cost, currency: turn.currency },
            e.at,
          ),
        );
      turn = undefined;
    }
  }
  return rows;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
