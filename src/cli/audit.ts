// `acphub audit [--since WHEN] [--user NAME] [--json]`: what the hub's users did (prompts,
// cancels, settings, shares, logins, user changes), from the ledger's audit log.
import { cliContext, type GlobalOptions } from "../app/context.js";
import { readAuditLog } from "../app/audit-log.js";
import type { AuditEntry } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, out } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface AuditOptions extends GlobalOptions {
  since?: string;
  user?: string;
  json?: boolean;
}

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// --since: a duration back from now (30m, 2h, 7d) or a date (2026-12-01, an ISO time).
export function sinceOf(
  value: string | undefined,
  now = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2]!]!;
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new HubError(
      "USAGE",
      `--since ${JSON.stringify(value)}: give a duration (30m, 2h, 7d) or a date (2026-12-01T09:00Z)`,
    );
  return at;
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
