// `acphub usage`: the tokens and cost agents reported, summed per agent or per session from
// the ledger, over all time or since a moment.
import { usageRows, type UsageRow } from "../app/reports.js";
import { sinceOf } from "../app/since.js";
import { HubError } from "../shared/errors.js";
import { cliContext } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, outList, type JsonOptions } from "./guard.js";

export interface UsageOptions extends JsonOptions {
  since?: string;
  by?: string;
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
    outList(options.json, rows, "no usage recorded\n", line);
  });
}
