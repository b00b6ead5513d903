// `acphub flow runs [--all] [--json]`: the workflow runs in the ledger and where each stands;
// by default only those `flow resume` can take further (not completed, not refused at a gate).
import { cliContext, type GlobalOptions } from "../app/context.js";
import { workflowRuns } from "../app/flows.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface FlowRunsOptions extends GlobalOptions {
  all?: boolean;
  json?: boolean;
}

const out = (text: string) => process.stdout.write(text);

// Lists the runs, one line each (id, state, step, workflow, when) or as JSON.
export async function flowRuns(options: FlowRunsOptions): Promise<ExitCode> {
  try {
    const rows = await workflowRuns(cliContext(options), options.all === true);
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
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
