// What `acphub sessions list | show | delete` ask of the ledger that run, chat and acp write:
// records shown with their MCP servers' secrets masked, a session's history as replayed.
import { resolve } from "node:path";
import { maskedServerSecrets } from "../shared/mcp-servers.js";
import { HubError } from "../shared/errors.js";
import { shownParams } from "../engine/wire-updates.js";
import { parseObject } from "../engine/stored-events.js";
import type {
  LedgerEvent,
  LedgerPort,
  ListPage,
  SessionRecord,
  StoredEvent,
} from "../engine/ports.js";
import type { AuditEntry } from "../contracts/users.js";
import { userStoreOf } from "../ledger/open.js";
import type { AppContext } from "../config/context.js";
import { openLedger } from "./wiring.js";

export type { LedgerEvent, SessionRecord };

// Opens the ledger, runs `body` on it, closes it.
export async function withLedger<T>(
  ctx: AppContext,
  body: (ledger: LedgerPort) => Promise<T>,
): Promise<T> {
  const ledger = await openLedger(ctx);
  try {
    return await body(ledger);
  } finally {
    await ledger.close();
  }
}

// A session as shown or exported: its MCP servers' env and header values masked.
export function shownRecord(record: SessionRecord): SessionRecord {
  return { ...record, request: maskedServerSecrets(record.request) };
}

export async function requireSession(
  ledger: LedgerPort,
  id: string,
): Promise<SessionRecord> {
  const record = await ledger.getSession(id);
  if (!record)
    throw new HubError(
      "SESSION_NOT_FOUND",
      `no session ${id} (see acphub sessions list)`,
    );
  return record;
}

// Every session, oldest page first; `cwd` (`.`, `dir/`) names the folder the ledger recorded.
export function listSessions(
  ctx: AppContext,
  cwd: string | undefined,
): Promise<SessionRecord[]> {
  return withLedger(ctx, async (ledger) => {
    const all: SessionRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: ListPage = await ledger.listSessions({
        cwd: cwd === undefined ? undefined : resolve(cwd),
        cursor,
        limit: 500,
      });
      all.push(...page.sessions.map(shownRecord));
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  });
}

/** One replayed update, with its `_meta` (a hub prompt's `acphub.author`); or, in a ledger's
 *  history, the end of a turn its runner's death cut off (`interrupted`). */
export type ShownItem = {
  update: Record<string, unknown>;
  meta?: Record<string, unknown>;
  interrupted?: { node?: string };
};

export interface SessionHistory {
  record: SessionRecord;
  events: LedgerEvent[];
  items: ShownItem[];
  /** The session's audit entries besides prompts (answers, cancels, settings, shares). */
  audit(): Promise<AuditEntry[]>;
}

// A session's record, stored events and replayed updates; its audit log on request.
export function sessionHistory<T>(
  ctx: AppContext,
  id: string,
  body: (history: SessionHistory) => Promise<T>,
): Promise<T> {
  return withLedger(ctx, async (ledger) => {
    const record = shownRecord(await requireSession(ledger, id));
    const events = await ledger.events(id);
    const items = (await ledger.read(id)).flatMap(shownItems);
    return body({
      record,
      events,
      items,
      audit: async () =>
        (await userStoreOf(ledger).auditLog({ sessionId: id })).filter(
          (e) => e.action !== "prompt",
        ),
    });
  });
}

// What a stored event shows in a history: its updates, and a turn's end when its runner died
// mid-turn (recorded `interrupted`: its outcome is unknown, not a cancel).
function shownItems(event: StoredEvent): ShownItem[] {
  if (event.kind === "turn_end") {
    const end = parseObject(event.text);
    if (!end?.["interrupted"]) return [];
    const node = end["node"];
    return [
      { update: {}, interrupted: typeof node === "string" ? { node } : {} },
    ];
  }
  return shownParams([event]).map((p) => ({
    update: (p["update"] ?? {}) as Record<string, unknown>,
    ...(p["_meta"] ? { meta: p["_meta"] as Record<string, unknown> } : {}),
  }));
}

// Deletes a session (SESSION_NOT_FOUND when there is none).
export function deleteSession(ctx: AppContext, id: string): Promise<void> {
  return withLedger(ctx, async (ledger) => {
    await requireSession(ledger, id);
    await ledger.deleteSession(id);
  });
}
