// `acphub flow run` and `flow resume` built whole: the ledger and host opened, the run planned
// (new, or resumed from its journal), started once and executed by the workflow runtime.
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { RunEvent } from "../contracts/events.js";
import type { Approver } from "../host/permission-engine.js";
import type { HostServices } from "../host/create-host.js";
import { budgetsOf } from "../telemetry/budgets.js";
import type { LedgerPort } from "../engine/ports.js";
import { HubError } from "../shared/errors.js";
import { findWorkflow } from "../workflows/discover.js";
import { resumePoint } from "../workflows/journal.js";
import type { GatePort } from "../workflows/ports.js";
import type { RunOutcome } from "../workflows/runner.js";
import type { WorkflowStep } from "../workflows/schema.js";
import { loadOptions, workflowDirs } from "../workflows/runtime/setup.js";
import { readJournal } from "../workflows/runtime/ports.js";
import { executeRun } from "../workflows/runtime/execute-run.js";
import { startRun, type PlannedRun } from "../workflows/runtime/run-session.js";
import type { AppContext } from "../config/context.js";
import { buildHost, openLedger, tracingFor } from "./wiring.js";
import { stepTracing } from "./step-tracing.js";

export type { Approver, GatePort, RunOutcome, WorkflowStep };
export { outcomeError } from "../workflows/runner.js";
export { stepLabel } from "../workflows/updates.js";

/** A new run of a workflow by name, or an earlier run to resume by its id. */
export type FlowTarget =
  { name: string; input: string; cwd?: string } | { resume: string };

/** What the command gives a run once it knows the workflow: how to show, ask and gate it. */
export interface FlowIo {
  emit(event: RunEvent): void;
  /** The step agents' permission questions (none: config's mode, else approve-reads). */
  approver?: Approver;
  gate: GatePort;
  /** Called once the run's host is built, just before its first step. */
  started?(): void;
}

export interface FlowStart {
  name: string;
  runId: string;
  resumed: boolean;
  steps: readonly WorkflowStep[];
}

// Plans, starts (when new) and executes the run; the ledger and host are closed after.
export async function runFlow(
  ctx: AppContext,
  target: FlowTarget,
  ioFor: (start: FlowStart) => FlowIo,
  signal: AbortSignal,
): Promise<{ runId: string; outcome: RunOutcome }> {
  let host: HostServices | undefined;
  // Each step's turn is an `invoke_agent` span, like a turn of `acp` (issue 40).
  const tracing = await tracingFor(ctx);
  const ledger = await openLedger(ctx, tracing).catch(
    async (error: unknown) => {
      await tracing?.shutdown();
      throw error;
    },
  );
  try {
    const { run, resumed } = await plan(ctx, ledger, target);
    if (!resumed) await startRun(ledger, run, run.workflow.spec.name);
    const { spec } = run.workflow;
    const io = ioFor({
      name: spec.name,
      runId: run.runId,
      resumed,
      steps: spec.steps,
    });
    host = buildHost({
      config: ctx.config,
      stateDir: ctx.paths.stateDir,
      configFile: ctx.paths.configFile,
      mode:
        ctx.config.permissions?.mode ?? (io.approver ? "ask" : "approve-reads"),
      logger: ctx.logger,
      ...(io.approver ? { approver: io.approver } : {}),
    });
    io.started?.();
    const budget = budgetsOf(ctx.config, ledger);
    const outcome = await executeRun({
      ctx,
      ledger,
      host,
      run,
      gate: io.gate,
      show: (update) =>
        io.emit({
          type: "session_update",
          sessionId: run.runId,
          update: update as never,
        }),
      signal,
      ...(budget ? { budget } : {}),
      ...(tracing ? stepTracing(tracing) : {}),
    });
    return { runId: run.runId, outcome };
  } finally {
    host?.close();
    await ledger.close();
    await tracing?.shutdown();
  }
}

// A new run (its input checked against the workflow's), or where a resumed one stopped.
async function plan(
  ctx: AppContext,
  ledger: LedgerPort,
  target: FlowTarget,
): Promise<{ run: PlannedRun; resumed: boolean }> {
  if ("resume" in target) {
    const { start, recorded } = resumePoint(
      target.resume,
      await readJournal(ledger, target.resume),
    );
    const workflow = findWorkflow(
      start.workflow,
      workflowDirs(ctx.paths, start.cwd),
      loadOptions(ctx.config),
    );
    const { cwd, input } = start;
    return {
      run: { workflow, runId: target.resume, cwd, input, recorded },
      resumed: true,
    };
  }
  const cwd = resolve(target.cwd ?? process.cwd());
  const workflow = findWorkflow(
    target.name,
    workflowDirs(ctx.paths, cwd),
    loadOptions(ctx.config),
  );
  if (workflow.spec.input?.required && !target.input.trim())
    throw new HubError(
      "USAGE",
      `workflow ${target.name} needs an input: ${workflow.spec.input.description ?? "see flow show"}`,
    );
  const run = {
    workflow,
    runId: randomUUID(),
    cwd,
    input: target.input,
    recorded: [],
  };
  return { run, resumed: false };
}
