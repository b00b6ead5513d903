// `acphub flow list | show | validate`: the workflows this folder and acphub's home offer.
import { stringify } from "yaml";
import {
  stepTitle,
  validateWorkflows,
  workflowEntries,
  workflowNamed,
  type FileReport,
} from "../app/flows.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { out, withContext, type JsonOptions } from "./guard.js";
import { safeText } from "./tty/safe-text.js";

export interface FlowListOptions extends JsonOptions {
  cwd?: string;
}

// Every workflow found, with its description (or why it does not load).
export function flowList(options: FlowListOptions): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const rows = workflowEntries(ctx, options.cwd);
    if (options.json) out(JSON.stringify(rows, null, 2) + "\n");
    else if (!rows.length)
      process.stderr.write(
        "acphub: no workflows (put NAME.yaml in .acphub/workflows/)\n",
      );
    else
      for (const r of rows)
        out(`${r.name.padEnd(20)} ${r.source.padEnd(8)} ${r.description}\n`);
  });
}

// One workflow: its file, steps and the file as validated.
export function flowShow(
  name: string,
  options: FlowListOptions,
): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const wf = workflowNamed(ctx, name, options.cwd);
    if (options.json)
      out(JSON.stringify({ file: wf.file, ...wf.spec }, null, 2) + "\n");
    else {
      out(
        `${wf.spec.name} — ${wf.spec.description ?? ""}\n${wf.file}\n\nsteps:\n`,
      );
      for (const step of wf.spec.steps) out(`  ${stepTitle(step)}\n`);
      out(`\n${stringify(wf.spec)}`);
    }
  });
}

// Checks one file, or every workflow found; every problem of a file names file:line:column.
// `--json`: `{"files": [{file, valid, problems: [{line, column, message}]}]}`.
export function flowValidate(
  file: string | undefined,
  options: FlowListOptions,
): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const reports = validateWorkflows(ctx, file, options.cwd);
    if (options.json) out(JSON.stringify({ files: reports }) + "\n");
    else
      for (const r of reports)
        if (r.valid) out(`${r.file}: ok\n`);
        else process.stderr.write(`acphub: ${safeText(problemLines(r))}\n`);
    return reports.every((r) => r.valid) ? EXIT_CODES.ok : EXIT_CODES.usage;
  });
}

// A file's problems as `file:line:column: message` lines (line 0: the file as a whole).
function problemLines(r: FileReport): string {
  return r.problems
    .map((p) =>
      p.line ? `${r.file}:${p.line}:${p.column}: ${p.message}` : p.message,
    )
    .join("\n");
}
