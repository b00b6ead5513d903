// `acphub agents list`: what would launch (`agents doctor` is in agents-doctor.ts).
import { agentRows, agentRowText } from "../app/agent-list.js";
import { out, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

export function agentsList(options: JsonOptions): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const rows = agentRows(ctx.config);
    if (options.json) return out(JSON.stringify(rows) + "\n");
    for (const r of rows) out(agentRowText(r));
  });
}
