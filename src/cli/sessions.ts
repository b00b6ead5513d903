// `acphub sessions list|show|delete|export|import`: the ledger that run, chat and acp write.
import { writeFileSync, readFileSync } from "node:fs";
import { errorMessage } from "../shared/errors.js";
import {
  deleteSession,
  listSessions,
  sessionHistory,
  type SessionHistory,
  type SessionRecord,
} from "../app/sessions.js";
import { exportSession, importSession } from "../app/session-transfer.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import {
  answer,
  out,
  outList,
  readStdin,
  withContext,
  type JsonOptions,
} from "./guard.js";
import { authorOf, readable } from "../app/history-text.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface SessionsOptions extends JsonOptions {
  cwd?: string;
  /** A running hub to ask instead (sessions-hub.ts). */
  hub?: string;
  tokenFile?: string;
}

// The hub's own command when --hub names one (loaded only then).
const onHub = () => import("./sessions-hub.js");

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

export async function sessionsList(o: SessionsOptions): Promise<ExitCode> {
  if (typeof o.hub === "string")
    return (await onHub()).hubSessionsList(o.hub, o);
  return withContext(o, async (ctx) => {
    outList(o.json, await listSessions(ctx, o.cwd), "no sessions\n", line);
  });
}

export async function sessionsShow(
  id: string,
  options: SessionsOptions,
): Promise<ExitCode> {
  if (typeof options.hub === "string")
    return (await onHub()).hubSessionsShow(options.hub, id, options);
  return withContext(options, (ctx) =>
    sessionHistory(ctx, id, async (history) => {
      const { record, events, items } = history;
      if (options.json) {
        out(inertJson({ session: record, events }) + "\n");
        return;
      }
      say(line(record));
      say(
        `cwd: ${record.cwd}\nagent session: ${record.agentSessionId ?? "-"}\n\n`,
      );
      for (const line of readable(items)) say(line + "\n");
      if (items.some((i) => authorOf(i) !== undefined))
        await showWhoDidWhat(history);
    }),
  );
}

// A shared session's other doings from the audit log: permission answers, cancels, settings,
// shares, each with the user's name.
async function showWhoDidWhat(history: SessionHistory): Promise<void> {
  const entries = (await history.audit()).map((e) => {
    const detail = e.detail ? `  ${JSON.stringify(e.detail)}` : "";
    return `  ${when(e.at)}  ${e.user}  ${e.action}${detail}\n`;
  });
  if (entries.length === 0) return;
  say("\nwho did what (acphub audit):\n");
  for (const entry of entries) say(entry);
}

export function sessionsDelete(
  id: string,
  options: SessionsOptions,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    await deleteSession(ctx, id);
    answer(options.json, { deleted: id }, `deleted ${id}\n`);
  });
}

// One session as JSON lines: a `session` line, then one `event` line per event, in order.
export function sessionsExport(
  id: string,
  options: SessionsOptions & { output?: string },
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const text = await exportSession(ctx, id);
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
    text = file === "-" ? await readStdin() : readFileSync(file, "utf8");
  } catch (error) {
    process.stderr.write(
      `acphub: cannot read ${file}: ${errorMessage(error)}\n`,
    );
    return EXIT_CODES.usage;
  }
  return withContext(options, async (ctx) => {
    const { id, events } = await importSession(
      ctx,
      text,
      file,
      options.replace === true,
    );
    const said = `imported ${id} (${events} events)\n`;
    answer(options.json, { imported: id, events }, said);
  });
}
