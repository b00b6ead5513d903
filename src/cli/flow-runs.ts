// `acphub flow runs [--all] [--json]`: the workflow runs in the ledger and where each stands;
// by default only those `flow resume` can take further (not completed, not refused at a gate).
import { workflowRuns } from "../app/flows.js";
import type { ExitCode } from "./exit-codes.js";
import { outList, withContext, type JsonOptions } from "./guard.js";

export interface FlowRunsOptions extends JsonOptions {
  all?: boolean;
}

// Lists the runs, one line each (id, state, step, workflow, when) or as JSON.
export function flowRuns(options: FlowRunsOptions): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const rows = await workflowRuns(ctx, options.all === true);
    outList(
      options.json,
      rows,
      options.all ? "no workflow runs\n" : "no unfinished workflow runs\n",
      (r) =>
        `${r.runId}  ${r.state.padEnd(11)} ${(r.step ?? "-").padEnd(12)} ${r.workflow}  ${new Date(r.updatedAt).toISOString()}\n`,
    );
  });
}
