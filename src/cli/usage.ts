// `acphub usage`: the tokens and cost agents reported, summed per agent or per session from
// the ledger, over all time or since a moment.
import { usageRows, type UsageRow } from "../app/reports.js";
import { sinceOf } from "../app/since.js";
import { HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, out } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface UsageOptions extends GlobalOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

// One row for people.
function line(r: UsageRow): string {
  const cost = r.currency ? `  ${r.cost.toFixed(4)} ${r.currency}` : "";
  return `${r.key.padEnd(24)} ${String(r.turns).padStart(5)} turns  ${r.inputTokens} in  ${r.outputTokens} out  ${r.totalTokens} total tokens${cost}\n`;
}

export function usageCommand(options: UsageOptions): Promise<ExitCode> {
  return guarded(async () => {
    const by = options.by ?? "agent";
    if (by !== "agent" && by !== "session" && by !== "user")
      throw new HubError("USAGE", `--by ${by}: give agent, session or user`);
    const since = sinceOf(options.since);
    const rows = await usageRows(cliContext(options), by, since);
    if (options.json) out(inertJson(rows) + "\n");
    else if (rows.length === 0) out("no usage recorded\n");
    else for (const r of rows) out(safeText(line(r)));
  });
}
