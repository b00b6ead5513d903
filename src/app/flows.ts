// What `acphub flow list | show | validate | runs` ask: the workflows this folder and acphub's
// home offer (each loaded and checked), and the runs the ledger holds.
import { resolve } from "node:path";
import { listWorkflows, findWorkflow } from "../workflows/discover.js";
import {
  loadWorkflowFile,
  type LoadOptions,
  type Workflow,
} from "../workflows/load.js";
import { loadOptions, workflowDirs } from "../workflows/runtime/setup.js";
import { listRuns, unfinished } from "../workflows/runtime/runs.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { openLedger } from "./wiring.js";

export { stepTitle } from "../workflows/updates.js";
export type { Workflow };

// The workflow files found from `cwd` (default: the current folder) and in acphub's home.
function filesFrom(ctx: AppContext, cwd: string | undefined) {
  return listWorkflows(workflowDirs(ctx.paths, resolve(cwd ?? process.cwd())));
}

// Every workflow found, with its description (or why it does not load).
export function workflowEntries(ctx: AppContext, cwd: string | undefined) {
  return filesFrom(ctx, cwd).map((e) => {
    try {
      const { spec } = loadWorkflowFile(e.file, loadOptions(ctx.config));
      return { ...e, description: spec.description ?? "", valid: true };
    } catch (error) {
      return {
        ...e,
        description: `invalid: ${errorMessage(error).split("\n")[0]}`,
        valid: false,
      };
    }
  });
}

// One workflow by name, as found from `cwd`.
export function workflowNamed(
  ctx: AppContext,
  name: string,
  cwd: string | undefined,
): Workflow {
  return findWorkflow(
    name,
    workflowDirs(ctx.paths, resolve(cwd ?? process.cwd())),
    loadOptions(ctx.config),
  );
}

/** One file's line in `flow validate --json`. */
export interface FileReport {
  file: string;
  valid: boolean;
  problems: { line: number; column: number; message: string }[];
}

// Loads one file; what is wrong with it, as data (a file that cannot be read has line 0).
function validateFile(file: string, options: LoadOptions): FileReport {
  try {
    loadWorkflowFile(file, options);
    return { file, valid: true, problems: [] };
  } catch (error) {
    const listed = isHubError(error) ? error.details["problems"] : undefined;
    const problems = Array.isArray(listed)
      ? (listed as FileReport["problems"])
      : [{ line: 0, column: 0, message: errorMessage(error) }];
    return { file, valid: false, problems };
  }
}

// Checks one file, or every workflow found from `cwd`.
export function validateWorkflows(
  ctx: AppContext,
  file: string | undefined,
  cwd: string | undefined,
): FileReport[] {
  const files = file ? [resolve(file)] : filesFrom(ctx, cwd).map((e) => e.file);
  return files.map((f) => validateFile(f, loadOptions(ctx.config)));
}

// The workflow runs in the ledger: all, or only those `flow resume` can take further.
export async function workflowRuns(ctx: AppContext, all: boolean) {
  const ledger = await openLedger(ctx);
  try {
    const runs = await listRuns(ledger);
    return all ? runs : runs.filter(unfinished);
  } finally {
    await ledger.close();
  }
}
