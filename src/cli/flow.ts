// `acphub flow list | show | validate`: the workflows this folder and acphub's home offer.
import { resolve } from "node:path";
import { stringify } from "yaml";
import { listWorkflows, findWorkflow } from "../workflows/discover.js";
import { loadWorkflowFile } from "../workflows/load.js";
import { stepTitle } from "../workflows/updates.js";
import { errorMessage } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { loadOptions, workflowDirs } from "../workflows/runtime/setup.js";
import { fail } from "./guard.js";

export interface FlowListOptions extends GlobalOptions {
  cwd?: string;
  json?: boolean;
}

const out = (text: string) => process.stdout.write(text);

// Every workflow found, with its description (or why it does not load).
export function flowList(options: FlowListOptions): ExitCode {
  try {
    const ctx = cliContext(options);
    const entries = listWorkflows(
      workflowDirs(ctx.paths, resolve(options.cwd ?? process.cwd())),
    );
    const rows = entries.map((e) => {
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
    if (options.json) out(JSON.stringify(rows, null, 2) + "\n");
    else if (!rows.length)
      process.stderr.write(
        "acphub: no workflows (put NAME.yaml in .acphub/workflows/)\n",
      );
    else
      for (const r of rows)
        out(`${r.name.padEnd(20)} ${r.source.padEnd(8)} ${r.description}\n`);
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

// One workflow: its file, steps and the file as validated.
export function flowShow(name: string, options: FlowListOptions): ExitCode {
  try {
    const ctx = cliContext(options);
    const wf = findWorkflow(
      name,
      workflowDirs(ctx.paths, resolve(options.cwd ?? process.cwd())),
      loadOptions(ctx.config),
    );
    if (options.json)
      out(JSON.stringify({ file: wf.file, ...wf.spec }, null, 2) + "\n");
    else {
      out(
        `${wf.spec.name} — ${wf.spec.description ?? ""}\n${wf.file}\n\nsteps:\n`,
      );
      for (const step of wf.spec.steps) out(`  ${stepTitle(step)}\n`);
      out(`\n${stringify(wf.spec)}`);
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

// Checks one file, or every workflow found; each problem names file:line:column.
export function flowValidate(
  file: string | undefined,
  options: FlowListOptions,
): ExitCode {
  try {
    const ctx = cliContext(options);
    const files = file
      ? [resolve(file)]
      : listWorkflows(
          workflowDirs(ctx.paths, resolve(options.cwd ?? process.cwd())),
        ).map((e) => e.file);
    let code: ExitCode = EXIT_CODES.ok;
    for (const f of files) {
      try {
        loadWorkflowFile(f, loadOptions(ctx.config));
        out(`${f}: ok\n`);
      } catch (error) {
        code = fail(error);
      }
    }
    return code;
  } catch (error) {
    return fail(error);
  }
}
