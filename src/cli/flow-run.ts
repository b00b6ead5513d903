// `acphub flow run` and `flow resume`: a workflow run from the command line, its progress in
// the ledger (the run is a session; each step agent's session is a child of it), its events
// rendered like `acphub run`, gates asked at the terminal or answered by --approve.
import { cliContext } from "../app/context.js";
import {
  runFlow,
  type FlowStart,
  type FlowTarget,
  type RunOutcome,
} from "../app/flow-run.js";
import { flowRunError, gatePolicy } from "../app/flow-gates.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { flowApprover, terminalAsker } from "./flow-approver.js";
import { reportError, type JsonOptions } from "./guard.js";
import { flowRenderer } from "./flow-render.js";
import { stdio } from "./render.js";

export interface FlowRunOptions extends JsonOptions {
  cwd?: string;
  approve?: boolean;
}

export function flowRun(
  name: string,
  words: string[],
  options: FlowRunOptions,
): Promise<ExitCode> {
  return flowCommand(options, {
    name,
    input: words.join(" "),
    cwd: options.cwd,
  });
}

export function flowResume(
  runId: string,
  options: FlowRunOptions,
): Promise<ExitCode> {
  return flowCommand(options, { resume: runId });
}

// Runs the target with this terminal's renderer, questions and gates; converts the outcome.
async function flowCommand(
  options: FlowRunOptions,
  target: FlowTarget,
): Promise<ExitCode> {
  const json = options.json === true;
  let unasked = false;
  try {
    const ctx = cliContext(options);
    // A person at a terminal answers gates and the step agents' permission requests.
    const ask = process.stdin.isTTY && !json ? terminalAsker() : undefined;
    const io = (s: FlowStart) => ({
      emit: flowRenderer(json, s.steps),
      ...(ask ? { approver: flowApprover(s.steps, ask) } : {}),
      gate: gatePolicy(
        options.approve === true,
        ask,
        (q) => `\n${q.text}\n${q.title}: approve? [y/N] `,
        () => (unasked = true),
      ),
      started: () => {
        if (!json)
          stdio.err(
            `acphub: workflow ${s.name}, run ${s.runId}${s.resumed ? " (resumed)" : ""}\n`,
          );
      },
    });
    const { runId, outcome } = await withSigint((signal) =>
      runFlow(ctx, target, io, signal),
    );
    return report(outcome, runId, json, unasked);
  } catch (error) {
    reportError(error, json, options.verbose);
    return toExitCode(error);
  }
}

// Ctrl-C cancels the running step and stops the run.
async function withSigint<T>(
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  try {
    return await body(controller.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function report(
  outcome: RunOutcome,
  runId: string,
  json: boolean,
  unasked: boolean,
): ExitCode {
  if (json)
    stdio.out(
      JSON.stringify({
        type: "result",
        runId,
        status: outcome.status,
        ...(outcome.step ? { step: outcome.step } : {}),
      }) + "\n",
    );
  else stdio.out("\n");
  if (outcome.status === "cancelled") return EXIT_CODES.interrupted;
  const error = flowRunError(outcome, runId, unasked);
  if (!error) return EXIT_CODES.ok;
  reportError(error, json);
  return toExitCode(error);
}
