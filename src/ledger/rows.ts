// Rows read back from SQLite are checked before use: a damaged row is skipped, not trusted.
import { z } from "zod";
import type { LedgerEvent, SessionRecord } from "../gateway/ports.js";

const jsonObject = z.string().transform((text, ctx) => {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  ctx.addIssue({ code: "custom", message: "not a JSON object" });
  return z.NEVER;
});

const sessionRow = z.object({
  id: z.string(),
  agent: z.string(),
  cwd: z.string(),
  title: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  state: z.enum(["active", "closed"]),
  agent_session_id: z.string().nullable(),
  request: jsonObject,
  incomplete: z.number(),
  event_count: z.number(),
  bytes: z.number(),
});

const eventRow = z.object({
  seq: z.number(),
  kind: z.enum([
    "prompt",
    "update",
    "permission",
    "turn_end",
    "restore",
    "workflow",
  ]),
  payload: jsonObject,
  at: z.number(),
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
    incomplete: r.incomplete !== 0,
    eventCount: r.event_count,
    bytes: r.bytes,
  };
}

export function toEvent(row: unknown): LedgerEvent | undefined {
  const parsed = eventRow.safeParse(row);
  return parsed.success ? parsed.data : undefined;
}
