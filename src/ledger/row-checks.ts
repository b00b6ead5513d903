// Rows read back from a ledger are checked before use: a damaged row is skipped, not trusted.
import { z } from "zod";
import {
  LEDGER_EVENT_KINDS,
  type LedgerEvent,
  type SessionRecord,
  type StoredEvent,
} from "../gateway/ledger-port.js";

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
});

const storedRow = z.object({
  seq: int,
  kind: z.enum(LEDGER_EVENT_KINDS as [string, ...string[]]),
  payload: z.string(),
  at: int,
});

// A JSON object, or undefined for anything else (damaged text, arrays, scalars).
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return undefined;
}

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
  };
}

/** A stored row as read, when its columns have the right types (the text is not parsed). */
export function toStored(row: unknown): StoredEvent | undefined {
  const parsed = storedRow.safeParse(row);
  if (!parsed.success) return undefined;
  const { seq, kind, payload, at } = parsed.data;
  return { seq, kind: kind as StoredEvent["kind"], text: payload, at };
}

/** A stored event parsed; undefined when its text is not a JSON object. */
export function toEvent(stored: StoredEvent): LedgerEvent | undefined {
  const payload = parseObject(stored.text);
  return payload
    ? { seq: stored.seq, kind: stored.kind, payload, at: stored.at }
    : undefined;
}
