// `acphub audit [--since WHEN] [--until WHEN] [--user NAME] [--session ID] [--action A] [--json]`: what the hub's users did (prompts,
// cancels, settings, shares, logins, user changes), from the ledger's audit log.
import { cliContext } from "../app/context.js";
import { readAuditLog } from "../app/audit-log.js";
import type { AuditEntry } from "../contracts/users.js";
import { sinceOf } from "../app/since.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, outList, type JsonOptions } from "./guard.js";

export interface AuditOptions extends JsonOptions {
  since?: string;
  until?: string;
  user?: string;
  session?: string;
  action?: string;
}

function line(e: AuditEntry): string {
  const when = new Date(e.at).toISOString().replace("T", " ").slice(0, 19);
  const detail = e.detail ? `  ${JSON.stringify(e.detail)}` : "";
  return `${when}  ${e.user.padEnd(16)} ${e.action.padEnd(18)} ${e.sessionId ?? "-"}${detail}\n`;
}

export function auditCommand(o: AuditOptions): Promise<ExitCode> {
  return guarded(async () => {
    const entries = await readAuditLog(cliContext(o), {
      since: sinceOf(o.since),
      until: sinceOf(o.until, Date.now(), "--until"),
      user: o.user,
      sessionId: o.session,
      action: o.action,
    });
    outList(o.json, entries, "no audit entries\n", line);
  });
}
