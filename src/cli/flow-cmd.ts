// `acphub flow …` registered on the program; each action loads its module when run.
import type { Command } from "commander";
import { act } from "./command-kit.js";

export function registerFlow(program: Command): void {
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
    .action(act(program, () => import("./flow.js"), "flowList"));
  flow
    .command("show")
    .description("show a workflow's steps and file")
    .argument("<name>", "workflow name")
    .option("-C, --cwd <dir>", "the project folder (default: here)")
    .option("--json", "print it as JSON")
    .action(act(program, () => import("./flow.js"), "flowShow"));
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
    .action(act(program, () => import("./flow.js"), "flowValidate"));
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
    .action(act(program, () => import("./flow-run.js"), "flowRun"));
  flow
    .command("runs")
    .description(
      "workflow runs in the ledger and their state (default: those not finished)",
    )
    .option("--all", "completed and rejected runs too")
    .option("--json", "print them as JSON")
    .action(act(program, () => import("./flow-runs.js"), "flowRuns"));
  flow
    .command("resume")
    .description(
      "continue a run that stopped (crash, failure, gate) at its first unfinished step",
    )
    .argument("<run-id>", "the run id flow run printed")
    .option("--json", "NDJSON events, then a result line")
    .option("--approve", "approve every gate still to be answered")
    .action(act(program, () => import("./flow-run.js"), "flowResume"));
}
