// `acphub audit [--since WHEN] [--user NAME] [--json]`: what the hub's users did (prompts,
// cancels, settings, shares, logins, user changes), from the ledger's audit log.
import { cliContext, type GlobalOptions } from "../app/context.js";
import { readAuditLog, sinceOf } from "../app/audit-log.js";
import type { AuditEntry } from "../contracts/users.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, out } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface AuditOptions extends GlobalOptions {
  since?: string;
  user?: string;
  json?: boolean;
}

function line(e: AuditEntry): string {
  const when = new Date(e.at).toISOString().replace("T", " ").slice(0, 19);
  const detail = e.detail ? `  ${JSON.stringify(e.detail)}` : "";
  return `${when}  ${e.user.padEnd(16)} ${e.action.padEnd(18)} ${e.sessionId ?? "-"}${detail}\n`;
}

export function auditCommand(o: AuditOptions): Promise<ExitCode> {
  return guarded(async () => {
    const since = sinceOf(o.since);
    const entries = await readAuditLog(cliContext(o), { since, user: o.user });
    if (o.json) out(`${inertJson(entries)}\n`);
    else if (entries.length === 0) out("no audit entries\n");
    else for (const e of entries) out(safeText(line(e)));
  });
}
