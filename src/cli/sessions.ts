// `acphub sessions list|show|delete|export|import`: the ledger that run, chat and acp write.
import { maskedServerSecrets } from "../shared/mcp-servers.js";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { shownParams } from "../engine/wire-updates.js";
import type {
  LedgerEvent,
  LedgerPort,
  ListPage,
  SessionRecord,
} from "../engine/ports.js";
import { errorMessage, HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";
import { openLedger } from "../app/wiring.js";
import { userStoreOf } from "../ledger/open.js";

export interface SessionsOptions extends GlobalOptions {
  json?: boolean;
  cwd?: string;
}

// Opens the ledger, runs the command on it, closes it; an error is one line and its exit code.
async function withLedger(
  options: GlobalOptions,
  body: (ledger: LedgerPort) => Promise<void>,
): Promise<ExitCode> {
  try {
    const ledger = await openLedger(cliContext(options));
    try {
      await body(ledger);
    } finally {
      await ledger.close();
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

const out = (text: string) => process.stdout.write(text);
// Text for people: titles, cwd and history came from agents and editors (no escape sequences).
const say = (text: string) => out(safeText(text));
const when = (ms: number) =>
  new Date(ms).toISOString().replace("T", " ").slice(0, 19);

function line(s: SessionRecord): string {
  const flags = [
    s.state === "closed" ? "closed" : "",
    s.incomplete ? "trimmed" : "",
  ]
    .filter(Boolean)
    .join(",");
  return `${s.id}  ${when(s.updatedAt)}  ${s.agent.padEnd(8)} ${String(s.eventCount).padStart(5)} events  ${s.title ?? "(untitled)"}${flags ? `  [${flags}]` : ""}\n`;
}

export function sessionsList(options: SessionsOptions): Promise<ExitCode> {
  return withLedger(options, async (ledger) => {
    const all: SessionRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: ListPage = await ledger.listSessions({
        // `.` and `dir/` name the same folder the ledger recorded as an absolute path.
        cwd: options.cwd === undefined ? undefined : resolve(options.cwd),
        cursor,
        limit: 500,
      });
      all.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor);
    if (options.json) out(inertJson(all.map(shownRecord)) + "\n");
    else if (all.length === 0) out("no sessions\n");
    else for (const s of all) say(line(s));
  });
}

// A session as shown or exported: its MCP servers' env and header values masked.
function shownRecord(record: SessionRecord): SessionRecord {
  return { ...record, request: maskedServerSecrets(record.request) };
}

async function requireSession(
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

export function sessionsShow(
  id: string,
  options: SessionsOptions,
): Promise<ExitCode> {
  return withLedger(options, async (ledger) => {
    const record = await requireSession(ledger, id);
    if (options.json) {
      const events = await ledger.events(id);
      out(inertJson({ session: shownRecord(record), events }) + "\n");
      return;
    }
    say(line(record));
    say(
      `cwd: ${record.cwd}\nagent session: ${record.agentSessionId ?? "-"}\n\n`,
    );
    const items = shownParams(await ledger.read(id)).map((p) => ({
      update: (p["update"] ?? {}) as Record<string, unknown>,
      ...(p["_meta"] ? { meta: p["_meta"] as Record<string, unknown> } : {}),
    }));
    for (const line of readable(items)) say(line + "\n");
    if (items.some((i) => authorOf(i) !== undefined))
      await showWhoDidWhat(ledger, id);
  });
}

// A shared session's other doings from the audit log: permission answers, cancels, settings,
// shares, each with the user's name.
async function showWhoDidWhat(ledger: LedgerPort, id: string): Promise<void> {
  const entries = (await userStoreOf(ledger).auditLog({ sessionId: id }))
    .filter((e) => e.action !== "prompt")
    .map((e) => {
      const detail = e.detail ? `  ${JSON.stringify(e.detail)}` : "";
      return `  ${when(e.at)}  ${e.user}  ${e.action}${detail}\n`;
    });
  if (entries.length === 0) return;
  say("\nwho did what (acphub audit):\n");
  for (const entry of entries) say(entry);
}

const SPEAKER: Record<string, string> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

/** One replayed update, with its `_meta` (a hub prompt's `acphub.author`). */
type Shown = {
  update: Record<string, unknown>;
  meta?: Record<string, unknown>;
};

// The hub user who sent a replayed prompt chunk, if one is recorded.
function authorOf(item: Shown): string | undefined {
  const author = (item.meta?.["acphub"] as { author?: unknown } | undefined)
    ?.author;
  return typeof author === "string" && author ? author : undefined;
}

// "alice> " for a hub user's prompt, else "user: " / "agent: " / "thought: ".
function speakerOf(item: Shown): string | undefined {
  const who = SPEAKER[String(item.update["sessionUpdate"])];
  const author = authorOf(item);
  if (who === "user" && author) return `${author}> `;
  return who === undefined ? undefined : `${who}: `;
}

// The history as a person reads it: consecutive chunks joined into one paragraph per speaker
// (a hub user's prompts under their name), tool calls and other updates one line each.
export function readable(items: Shown[]): string[] {
  const lines: string[] = [];
  let speaker = "";
  for (const item of items) {
    const u = item.update;
    const kind = String(u["sessionUpdate"]);
    const who = speakerOf(item);
    if (who) {
      const content = u["content"] as
        { type?: string; text?: string } | undefined;
      const text =
        content?.type === "text"
          ? (content.text ?? "")
          : `[${content?.type ?? "?"}]`;
      if (who === speaker) lines[lines.length - 1] += text;
      else lines.push(`${who}${text}`);
      speaker = who;
      continue;
    }
    speaker = "";
    if (kind === "tool_call" || kind === "tool_call_update") {
      lines.push(
        `  [tool] ${String(u["title"] ?? u["toolCallId"])} ${u["status"] ? `(${String(u["status"])})` : ""}`.trimEnd(),
      );
    } else lines.push(`  [${kind}]`);
  }
  return lines.map((l) => l.trimEnd());
}

export function sessionsDelete(
  id: string,
  options: SessionsOptions,
): Promise<ExitCode> {
  return withLedger(options, async (ledger) => {
    await requireSession(ledger, id);
    await ledger.deleteSession(id);
    out(
      options.json ? JSON.stringify({ deleted: id }) + "\n" : `deleted ${id}\n`,
    );
  });
}

// One session as JSON lines: a `session` line, then one `event` line per event, in order.
export function sessionsExport(
  id: string,
  options: SessionsOptions & { output?: string },
): Promise<ExitCode> {
  return withLedger(options, async (ledger) => {
    const record = await requireSession(ledger, id);
    const lines = [
      inertJson({ type: "session", session: shownRecord(record) }),
    ];
    for (const event of await ledger.events(id))
      lines.push(inertJson({ type: "event", ...event }));
    const text = lines.join("\n") + "\n";
    if (options.output) writeFileSync(options.output, text, { mode: 0o600 });
    else out(text);
  });
}

// Reads what `export` wrote (a file, or - for stdin) back into the ledger.
export async function sessionsImport(
  file: string,
  options: SessionsOptions & { replace?: boolean },
): Promise<ExitCode> {
  let text: string;
  try {
    text =
      file === "-" ? await readAll(process.stdin) : readFileSync(file, "utf8");
  } catch (error) {
    process.stderr.write(
      `acphub: cannot read ${file}: ${errorMessage(error)}\n`,
    );
    return EXIT_CODES.usage;
  }
  return withLedger(options, async (ledger) => {
    const { session, events } = parseExport(text, file);
    if (await ledger.getSession(session.id)) {
      if (!options.replace)
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
    out(
      options.json
        ? JSON.stringify({ imported: session.id, events: events.length }) + "\n"
        : `imported ${session.id} (${events.length} events)\n`,
    );
  });
}

// Exports written before the ledger's schema 2 kept an update's notification metadata in `meta`.
function withMetaKey(event: LedgerEvent): Record<string, unknown> {
  const { meta, ...rest } = event.payload;
  return event.kind === "update" && meta !== undefined && !("_meta" in rest)
    ? { ...rest, _meta: meta }
    : event.payload;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function parseExport(
  text: string,
  file: string,
): { session: SessionRecord; events: LedgerEvent[] } {
  const bad = (line: number, why: string) =>
    new HubError("USAGE", `${file}: line ${line}: ${why}`);
  let session: SessionRecord | undefined;
  const events: LedgerEvent[] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    let value: {
      type?: string;
      session?: SessionRecord;
    } & Partial<LedgerEvent>;
    try {
      value = JSON.parse(line) as typeof value;
    } catch {
      throw bad(index + 1, "not JSON");
    }
    if (
      value.type === "session" &&
      value.session &&
      typeof value.session.id === "string"
    )
      session = value.session;
    else if (
      value.type === "event" &&
      typeof value.kind === "string" &&
      value.payload &&
      typeof value.payload === "object"
    ) {
      events.push(value as LedgerEvent);
    } else
      throw bad(
        index + 1,
        'expected a "session" or "event" line from acphub sessions export',
      );
  });
  if (!session) throw bad(1, "no session line");
  return { session, events };
}
