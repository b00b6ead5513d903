// `acphub flow runs [--all] [--json]`: the workflow runs in the ledger and where each stands;
// by default only those `flow resume` can take further (not completed, not refused at a gate).
import type { GlobalOptions } from "../app/context.js";
import { workflowRuns } from "../app/flows.js";
import type { ExitCode } from "./exit-codes.js";
import { out, withContext } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface FlowRunsOptions extends GlobalOptions {
  all?: boolean;
  json?: boolean;
}

// Lists the runs, one line each (id, state, step, workflow, when) or as JSON.
export function flowRuns(options: FlowRunsOptions): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const rows = await workflowRuns(ctx, options.all === true);
    if (options.json) out(inertJson(rows) + "\n");
    else if (rows.length === 0)
      out(options.all ? "no workflow runs\n" : "no unfinished workflow runs\n");
    else
      for (const r of rows)
        out(
          safeText(
            `${r.runId}  ${r.state.padEnd(11)} ${(r.step ?? "-").padEnd(12)} ${r.workflow}  ${new Date(r.updatedAt).toISOString()}`,
          ) + "\n",
        );
  });
}
