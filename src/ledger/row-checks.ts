// Rows read back from a ledger are checked before use: a damaged row is skipped, not trusted.
import { z } from "zod";
import {
  LEDGER_EVENT_KINDS,
  type NewSessionRecord,
  type SessionRecord,
  type StoredEvent,
} from "../engine/ledger-port.js";
import type { Logger } from "../shared/logger.js";
import { parseObject } from "../engine/stored-events.js";

const jsonObject = z.union([
  z.record(z.string(), z.unknown()),
  z.string().transform((text, ctx) => {
    const value = parseObject(text);
    if (value) return value;
    ctx.addIssue({ code: "custom", message: "not a JSON object" });
    return z.NEVER;
  }),
]);

const int = z
  .union([z.number(), z.string().regex(/^-?\d+$/)])
  .transform(Number);

const sessionRow = z.object({
  id: z.string(),
  agent: z.string(),
  cwd: z.string(),
  title: z.string().nullable(),
  created_at: int,
  updated_at: int,
  state: z.enum(["active", "closed"]),
  agent_session_id: z.string().nullable(),
  request: jsonObject,
  incomplete: z.union([z.number(), z.boolean()]),
  event_count: int,
  bytes: int,
  settings: jsonObject.nullable().optional(),
  forked_from: z.string().nullable().optional(),
});

export function toSession(row: unknown): SessionRecord | undefined {
  const parsed = sessionRow.safeParse(row);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  return {
    id: r.id,
    agent: r.agent,
    cwd: r.cwd,
    title: r.title,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    state: r.state,
    agentSessionId: r.agent_session_id,
    request: r.request,
    incomplete: r.incomplete !== 0 && r.incomplete !== false,
    eventCount: r.event_count,
    bytes: r.bytes,
    settings: r.settings ?? null,
    forkedFrom: r.forked_from ?? null,
  };
}

/** A session row as a ledger gives it, to parse once while the ledger opens (warmRowChecks). */
const SAMPLE_ROW = {
  id: "hub-0",
  agent: "a",
  cwd: "/",
  title: null,
  created_at: "0",
  updated_at: 0,
  state: "active",
  agent_session_id: null,
  request: "{}",
  incomplete: 0,
  event_count: "0",
  bytes: 0,
  settings: null,
  forked_from: null,
};

/** Parses a sample session row: zod builds a schema's checks at its first parse (3 ms), which
 *  would otherwise fall on the first request that reads a session (a session/load after start). */
export function warmRowChecks(): void {
  toSession(SAMPLE_ROW);
}

/** A session row as read, checked; a damaged one is logged and treated as absent. */
export function checkedSession(
  row: unknown,
  id: string,
  logger: Logger,
): SessionRecord | undefined {
  if (row === undefined) return undefined;
  const record = toSession(row);
  if (!record)
    logger.warn({ sessionId: id }, "ledger: damaged session row ignored");
  return record;
}

/** The stored values of a new session's text columns: known secrets masked, JSON as text. */
export function sessionValues(
  record: NewSessionRecord,
  mask: (text: string) => string,
) {
  return {
    title: record.title === null ? null : mask(record.title),
    request: mask(JSON.stringify(record.request)),
    settings: record.settings ? JSON.stringify(record.settings) : null,
    forkedFrom: record.forkedFrom ?? null,
  };
}

const KINDS = new Set<string>(LEDGER_EVENT_KINDS);

/**
 * A stored row as read, when its columns have the right types and its text looks like a JSON
 * object (checked by its ends only: replay sends it as stored, so this runs once per row).
 */
export function toStored(
  seq: unknown,
  kind: unknown,
  text: unknown,
  at: unknown,
): StoredEvent | undefined {
  if (
    typeof kind !== "string" ||
    !KINDS.has(kind) ||
    typeof text !== "string" ||
    !text.startsWith("{") ||
    !text.endsWith("}")
  )
    return undefined;
  return {
    seq: Number(seq),
    kind: kind as StoredEvent["kind"],
    text,
    at: Number(at),
  };
}
