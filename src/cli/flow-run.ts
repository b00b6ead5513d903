// `acphub flow run` and `flow resume`: a workflow run from the command line, its progress in
// the ledger (the run is a session; each step agent's session is a child of it), its events
// rendered like `acphub run`, gates asked at the terminal or answered by --approve.
import { budgetsOf } from "../telemetry/budgets.js";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { RunEvent } from "../contracts/events.js";
import type { LedgerPort } from "../engine/ports.js";
import { HubError } from "../shared/errors.js";
import { findWorkflow } from "../workflows/discover.js";
import { resumePoint, type ResumePoint } from "../workflows/journal.js";
import type { Workflow } from "../workflows/load.js";
import type { GatePort } from "../workflows/ports.js";
import {
  outcomeError,
  runWorkflow,
  type RunOutcome,
} from "../workflows/runner.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { AppContext } from "../config/context.js";
import type { Config } from "../config/schema.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { flowApprover, terminalAsker, type AskLine } from "./flow-approver.js";
import {
  loadOptions,
  secretMasker,
  templateEnv,
  workflowDirs,
} from "../workflows/runtime/setup.js";
import {
  ledgerJournal,
  readJournal,
  shellPort,
  stepAgents,
  type RunStepAgents,
} from "../workflows/runtime/ports.js";
import { reportError } from "./run.js";
import { createRunSession } from "../workflows/runtime/run-session.js";
import { flowRenderer, stdio } from "./flow-render.js";
import { buildHost, openLedger } from "../app/wiring.js";

export interface FlowRunOptions extends GlobalOptions {
  cwd?: string;
  json?: boolean;
  approve?: boolean;
}

// Gates: --approve answers yes; a terminal asks; with neither, a gate is refused.
function gatePort(
  options: FlowRunOptions,
  ask: AskLine | undefined,
  refusedUnasked: () => void,
): GatePort {
  return {
    ask: async (q, signal) => {
      if (options.approve) return true;
      if (!ask) {
        refusedUnasked();
        return undefined;
      }
      const answer = await ask(
        `\n${q.text}\n${q.title}: approve? [y/N] `,
        signal,
      );
      return /^y(es)?$/i.test(answer.trim());
    },
  };
}

export async function flowRun(
  name: string,
  words: string[],
  options: FlowRunOptions,
): Promise<ExitCode> {
  return flowCommand(options, (ctx) => {
    const cwd = resolve(options.cwd ?? process.cwd());
    const workflow = findWorkflow(
      name,
      workflowDirs(ctx.paths, cwd),
      loadOptions(ctx.config),
    );
    const input = words.join(" ");
    if (workflow.spec.input?.required && !input.trim())
      throw new HubError(
        "USAGE",
        `workflow ${name} needs an input: ${workflow.spec.input.description ?? "see flow show"}`,
      );
    return { workflow, cwd, input, runId: randomUUID(), recorded: [] };
  });
}

export async function flowResume(
  runId: string,
  options: FlowRunOptions,
): Promise<ExitCode> {
  return flowCommand(options, async (ctx, ledger) => {
    const point: ResumePoint = resumePoint(
      runId,
      await readJournal(ledger, runId),
    );
    const { start } = point;
    const workflow = findWorkflow(
      start.workflow,
      workflowDirs(ctx.paths, start.cwd),
      loadOptions(ctx.config),
    );
    return {
      workflow,
      cwd: start.cwd,
      input: start.input,
      runId,
      recorded: point.recorded,
      resumed: true,
    };
  });
}

interface Planned {
  workflow: Workflow;
  cwd: string;
  input: string;
  runId: string;
  recorded: ResumePoint["recorded"];
  resumed?: boolean;
}

// Opens the ledger and host, plans the run (new or resumed), runs it, converts the outcome.
async function flowCommand(
  options: FlowRunOptions,
  plan: (ctx: AppContext, ledger: LedgerPort) => Planned | Promise<Planned>,
): Promise<ExitCode> {
  const json = options.json === true;
  let ledger: LedgerPort | undefined;
  let host: ReturnType<typeof buildHost> | undefined;
  let agents: RunStepAgents | undefined;
  try {
    const ctx = cliContext(options);
    ledger = await openLedger(ctx);
    const p = await plan(ctx, ledger);
    if (!p.resumed)
      await createRunSession(ledger, p.runId, p.workflow, p.cwd, p.input);
    const journal = ledgerJournal(ledger, p.runId);
    if (!p.resumed)
      await journal.record({
        type: "run_start",
        runId: p.runId,
        workflow: p.workflow.spec.name,
        file: p.workflow.file,
        input: p.input,
        cwd: p.cwd,
      });
    const steps = p.workflow.spec.steps;
    const render = flowRenderer(json, steps);
    const emit = (event: RunEvent) => render(event);
    // A person at a terminal answers gates and the step agents' permission requests.
    const ask = process.stdin.isTTY && !json ? terminalAsker() : undefined;
    host = buildHost({
      config: ctx.config,
      stateDir: ctx.paths.stateDir,
      configFile: ctx.paths.configFile,
      mode: ctx.config.permissions?.mode ?? (ask ? "ask" : "approve-reads"),
      logger: ctx.logger,
      ...(ask ? { approver: flowApprover(steps, ask) } : {}),
    });
    host.onSessionStart?.(p.runId, { cwd: p.cwd });
    let unasked = false;
    const masker = secretMasker();
    if (!json)
      stdio.err(
        `acphub: workflow ${p.workflow.spec.name}, run ${p.runId}${p.resumed ? " (resumed)" : ""}\n`,
      );
    const outcome = await withSigint((signal) =>
      runWorkflow({
        runId: p.runId,
        workflow: p.workflow,
        input: p.input,
        cwd: p.cwd,
        env: templateEnv(ctx.config),
        mask: (text) => masker.mask(text),
        recorded: p.recorded,
        agents: (agents = stepAgents({
          ctx,
          host: host!,
          ledger: ledger!,
          runId: p.runId,
          logger: ctx.logger,
          ...budgetOf(ctx.config, ledger!),
        })),
        shell: shellPort(host!, p.runId),
        gate: gatePort(options, ask, () => (unasked = true)),
        sink: {
          update: (update) =>
            emit({
              type: "session_update",
              sessionId: p.runId,
              update: masker.maskValue(update) as never,
            }),
        },
        journal,
        signal,
      }),
    );
    return report(outcome, p.runId, json, unasked);
  } catch (error) {
    reportError(error, json, options.verbose);
    return toExitCode(error);
  } finally {
    await agents?.close();
    host?.close();
    await ledger?.close();
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
  const error = outcomeError(outcome);
  if (!error) return EXIT_CODES.ok;
  if (unasked && outcome.status === "waiting")
    error.message = `the gate ${outcome.step} needs an answer and there is no terminal to ask: the run waits there (approve it with acphub flow resume ${runId} --approve)`;
  else
    error.message += ` (run ${runId}; continue with acphub flow resume ${runId})`;
  reportError(error, json);
  return toExitCode(error);
}

// limits.budget for the run's step agents (over the run's ledger), when config names any.
function budgetOf(config: Config, ledger: LedgerPort) {
  const budget = budgetsOf(config, ledger);
  return budget ? { budget } : {};
}
