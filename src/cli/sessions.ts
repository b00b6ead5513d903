// `acphub sessions list|show ID|delete ID [--json]`: the ledger behind `acphub acp`.
import { join } from "node:path";
import { replayItems } from "../gateway/history.js";
import type { SessionRecord } from "../gateway/ports.js";
import { DEFAULT_LEDGER_CAPS, SqliteLedger } from "../ledger/sqlite-ledger.js";
import { withDefaults } from "../shared/defaults.js";
import { errorMessage, HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "./context.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";

export interface SessionsOptions extends GlobalOptions {
  json?: boolean;
  cwd?: string;
}

function openLedger(options: GlobalOptions): SqliteLedger {
  const { config, paths, logger } = cliContext(options);
  return new SqliteLedger(
    join(paths.stateDir, "ledger.db"),
    withDefaults(DEFAULT_LEDGER_CAPS, config.ledger),
    logger,
  );
}

function withLedger(
  options: GlobalOptions,
  body: (ledger: SqliteLedger) => void,
): ExitCode {
  let ledger: SqliteLedger | undefined;
  try {
    ledger = openLedger(options);
    body(ledger);
    return EXIT_CODES.ok;
  } catch (error) {
    process.stderr.write(`acphub: ${errorMessage(error)}\n`);
    return toExitCode(error);
  } finally {
    ledger?.close();
  }
}

const out = (text: string) => process.stdout.write(text);
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

export function sessionsList(options: SessionsOptions): ExitCode {
  return withLedger(options, (ledger) => {
    const all: SessionRecord[] = [];
    let cursor: string | null = null;
    do {
      const page = ledger.listSessions({
        cwd: options.cwd,
        cursor,
        limit: 500,
      });
      all.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor);
    if (options.json) out(JSON.stringify(all) + "\n");
    else if (all.length === 0) out("no sessions\n");
    else for (const s of all) out(line(s));
  });
}

function requireSession(ledger: SqliteLedger, id: string): SessionRecord {
  const record = ledger.getSession(id);
  if (!record)
    throw new HubError(
      "SESSION_NOT_FOUND",
      `no session ${id} (see acphub sessions list)`,
    );
  return record;
}

export function sessionsShow(id: string, options: SessionsOptions): ExitCode {
  return withLedger(options, (ledger) => {
    const record = requireSession(ledger, id);
    const events = ledger.events(id);
    if (options.json) {
      out(JSON.stringify({ session: record, events }) + "\n");
      return;
    }
    out(line(record));
    out(
      `cwd: ${record.cwd}\nagent session: ${record.agentSessionId ?? "-"}\n\n`,
    );
    for (const item of replayItems(events)) {
      const u = item.update as {
        sessionUpdate: string;
        content?: { text?: string };
        title?: string;
      };
      const text = u.content?.text ?? u.title ?? "";
      out(
        `${u.sessionUpdate.padEnd(22)} ${text.replace(/\s+/g, " ").slice(0, 100)}\n`,
      );
    }
  });
}

export function sessionsDelete(id: string, options: SessionsOptions): ExitCode {
  return withLedger(options, (ledger) => {
    requireSession(ledger, id);
    ledger.deleteSession(id);
    out(`deleted ${id}\n`);
  });
}
