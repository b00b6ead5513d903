// `acphub flow …` registered on the program; each action loads its module when run.
import type { Command } from "commander";

type Opts = Record<string, unknown>;

export function registerFlow(program: Command): void {
  const all = (options: Opts) => ({ ...program.opts(), ...options });
  const flow = program
    .command("flow")
    .description(
      "workflows: one prompt through several agents, shell steps and approval gates",
    );
  flow
    .command("list")
    .description("workflows in .acphub/workflows/ here and in acphub's home")
    .option("-C, --cwd <dir>", "the project folder (default: here)")
    .option("--json", "print them as JSON")
    .action(async (options: Opts) => {
      const { flowList } = await import("./flow.js");
      process.exitCode = flowList(all(options));
    });
  flow
    .command("show")
    .description("show a workflow's steps and file")
    .argument("<name>", "workflow name")
    .option("-C, --cwd <dir>", "the project folder (default: here)")
    .option("--json", "print it as JSON")
    .action(async (name: string, options: Opts) => {
      const { flowShow } = await import("./flow.js");
      process.exitCode = flowShow(name, all(options));
    });
  flow
    .command("validate")
    .description(
      "check a workflow file (or every workflow found); errors name file:line:column",
    )
    .argument("[file]", "a workflow file")
    .option("-C, --cwd <dir>", "the project folder (default: here)")
    .option(
      "--json",
      "print each file's problems (line, column, message) as JSON",
    )
    .action(async (file: string | undefined, options: Opts) => {
      const { flowValidate } = await import("./flow.js");
      process.exitCode = flowValidate(file, all(options));
    });
  flow
    .command("run")
    .description("run a workflow; its progress is kept in the ledger")
    .argument("<name>", "workflow name")
    .argument("[input...]", "the workflow's {{ input }}")
    .option("-C, --cwd <dir>", "the project folder (default: here)")
    .option(
      "--json",
      "NDJSON events (step updates included), then a result line",
    )
    .option(
      "--approve",
      "approve every gate (without it, gates need a terminal)",
    )
    .addHelpText(
      "after",
      "\nExit codes: 0 done, 1 a step failed, 2 invalid or unknown workflow, 3 timeout,\n5 a gate rejected (or no terminal to ask: the run waits, see flow runs), 130 interrupted.",
    )
    .action(async (name: string, words: string[], options: Opts) => {
      const { flowRun } = await import("./flow-run.js");
      process.exitCode = await flowRun(name, words, all(options));
    });
  flow
    .command("runs")
    .description(
      "workflow runs in the ledger and their state (default: those not finished)",
    )
    .option("--all", "completed and rejected runs too")
    .option("--json", "print them as JSON")
    .action(async (options: Opts) => {
      const { flowRuns } = await import("./flow-runs.js");
      process.exitCode = await flowRuns(all(options));
    });
  flow
    .command("resume")
    .description(
      "continue a run that stopped (crash, failure, gate) at its first unfinished step",
    )
    .argument("<run-id>", "the run id flow run printed")
    .option("--json", "NDJSON events, then a result line")
    .option("--approve", "approve every gate still to be answered")
    .action(async (runId: string, options: Opts) => {
      const { flowResume } = await import("./flow-run.js");
      process.exitCode = await flowResume(runId, all(options));
    });
}
