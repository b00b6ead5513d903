// `acphub sessions export | import`: one session as JSON lines (a `session` line, then one
// `event` line per event, in order), read back into a ledger, older exports migrated.
import { HubError } from "../shared/errors.js";
import { inertJson } from "../shared/inert-json.js";
import type { LedgerEvent, SessionRecord } from "../engine/ports.js";
import type { AppContext } from "../config/context.js";
import { requireSession, shownRecord, withLedger } from "./sessions.js";

// The export of one session, as text.
export function exportSession(ctx: AppContext, id: string): Promise<string> {
  return withLedger(ctx, async (ledger) => {
    const record = await requireSession(ledger, id);
    const lines = [
      inertJson({ type: "session", session: shownRecord(record) }),
    ];
    for (const event of await ledger.events(id))
      lines.push(inertJson({ type: "event", ...event }));
    return lines.join("\n") + "\n";
  });
}

// Reads an export (named `file` in errors) into the ledger; `replace` overwrites the session.
export function importSession(
  ctx: AppContext,
  text: string,
  file: string,
  replace: boolean,
): Promise<{ id: string; events: number }> {
  return withLedger(ctx, async (ledger) => {
    const { session, events } = parseExport(text, file);
    if (await ledger.getSession(session.id)) {
      if (!replace)
        throw new HubError(
          "USAGE",
          `session ${session.id} already exists (pass --replace to overwrite it)`,
        );
      await ledger.deleteSession(session.id);
    }
    await ledger.createSession(session);
    await Promise.all(
      events.map((event) =>
        ledger.append(session.id, event.kind, withMetaKey(event)),
      ),
    );
    return { id: session.id, events: events.length };
  });
}

// Exports written before the ledger's schema 2 kept an update's notification metadata in `meta`.
function withMetaKey(event: LedgerEvent): Record<string, unknown> {
  const { meta, ...rest } = event.payload;
  return event.kind === "update" && meta !== undefined && !("_meta" in rest)
    ? { ...rest, _meta: meta }
    : event.payload;
}

type ExportLine = {
  type?: string;
  session?: SessionRecord;
} & Partial<LedgerEvent>;

// One line of an export: a session, an event, or an error naming the line.
function parseLine(line: string, bad: (why: string) => HubError): ExportLine {
  let value: ExportLine;
  try {
    value = JSON.parse(line) as ExportLine;
  } catch {
    throw bad("not JSON");
  }
  const isSession =
    value.type === "session" &&
    value.session &&
    typeof value.session.id === "string";
  const isEvent =
    value.type === "event" &&
    typeof value.kind === "string" &&
    value.payload &&
    typeof value.payload === "object";
  if (!isSession && !isEvent)
    throw bad(
      'expected a "session" or "event" line from acphub sessions export',
    );
  return value;
}

function parseExport(
  text: string,
  file: string,
): { session: SessionRecord; events: LedgerEvent[] } {
  let session: SessionRecord | undefined;
  const events: LedgerEvent[] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    const value = parseLine(
      line,
      (why) => new HubError("USAGE", `${file}: line ${index + 1}: ${why}`),
    );
    if (value.type === "session") session = value.session;
    else events.push(value as LedgerEvent);
  });
  if (!session) throw new HubError("USAGE", `${file}: line 1: no session line`);
  return { session, events };
}
