// Runs a workflow: steps in order, bounded loops on failure, deadlines, gates; writes each
// step's start and end to the journal, and continues a run from what the journal kept.
import type { McpServer } from "@agentclientprotocol/sdk";
import { HubError } from "../shared/errors.js";
import { toAcpServers } from "../shared/mcp-servers.js";
import type { Workflow } from "./load.js";
import type { JournalEntry, RunJournal, StepStatus } from "./ports.js";
import type { WorkflowStep } from "./schema.js";
import {
  runAgentTurn,
  runParallel,
  runShell,
  type ExecContext,
  type StepResult,
} from "./step-exec.js";
import { render, runEnv, type TemplateScope } from "./templates.js";
import {
  planUpdate,
  stepToolCall,
  stepToolCallEnd,
  stepToolCallId,
  startedTitle,
  branchStepId,
  type PlanState,
} from "./updates.js";

type StepEnd = Extract<JournalEntry, { type: "step_end" }>;

export interface RunWorkflowOptions extends ExecContext {
  runId: string;
  workflow: Workflow;
  input: string;
  env: Record<string, string>;
  journal: RunJournal;
  signal: AbortSignal;
  /** Hides known secrets in step outputs before they are shown, stored or templated. */
  mask?: (text: string) => string;
  /** Step ends an interrupted earlier attempt recorded, in order: taken instead of running. */
  recorded?: StepEnd[];
}

export type RunStatus =
  "completed" | "failed" | "rejected" | "waiting" | "cancelled" | "timeout";

export interface RunOutcome {
  status: RunStatus;
  /** The step that ended the run, when it did not complete. */
  step?: string;
  output: string;
}

interface RunState {
  o: RunWorkflowOptions;
  scope: TemplateScope;
  results: Map<string, StepResult>;
  plan: Map<string, PlanState>;
  attempts: Map<string, number>;
  recorded: StepEnd[];
  /** Each started step's title, rendered when it started. */
  titles: Map<string, string>;
}

// Runs (or continues) the workflow to its end, a failure, a rejection, a deadline or a cancel.
export async function runWorkflow(o: RunWorkflowOptions): Promise<RunOutcome> {
  const { steps, timeoutMs } = o.workflow.spec;
  const signal = timeoutMs
    ? AbortSignal.any([o.signal, AbortSignal.timeout(timeoutMs)])
    : o.signal;
  const results = new Map<string, StepResult>();
  const s: RunState = {
    o,
    scope: { input: o.input, steps: results, env: o.env },
    results,
    plan: new Map(),
    attempts: new Map(),
    recorded: [...(o.recorded ?? [])],
    titles: new Map(),
  };
  const showPlan = () => o.sink.update(planUpdate(steps, s.plan, s.titles));
  let i = 0;
  let last: StepResult = { status: "completed", output: "" };
  while (i < steps.length) {
    const step = steps[i]!;
    s.titles.set(step.id, startedTitle(step, s.scope));
    // A step the journal answers for (done earlier) is never shown as in progress.
    if (s.recorded[0]?.step !== step.id) {
      s.plan.set(step.id, "in_progress");
      showPlan();
    }
    last = await stepOnce(s, step, signal);
    results.set(step.id, last);
    s.plan.set(step.id, planStateOf(last.status));
    const next = nextIndex(s, steps, i, last.status);
    if (next === undefined) {
      showPlan();
      return finish(o, {
        status: last.status as RunStatus,
        step: step.id,
        output: last.output,
      });
    }
    markJump(s, steps, i, next);
    i = next;
  }
  showPlan();
  return finish(o, { status: "completed", output: last.output });
}

// After a jump: steps jumped over are skipped, steps to run again are pending again.
function markJump(
  s: RunState,
  steps: WorkflowStep[],
  from: number,
  to: number,
): void {
  if (to === from + 1) return;
  steps.forEach((step, j) => {
    if (to > from && j > from && j < to) s.plan.set(step.id, "skipped");
    if (to <= from && j >= to && j < from) s.plan.set(step.id, "pending");
  });
}

// Where the run goes after a step: the next one, a bounded jump, or nowhere (undefined).
function nextIndex(
  s: RunState,
  steps: WorkflowStep[],
  i: number,
  status: StepStatus,
): number | undefined {
  if (status === "completed") return i + 1;
  if (status !== "failed") return undefined;
  const step = steps[i]!;
  const jump = "onFailure" in step ? step.onFailure : undefined;
  if (!jump) return undefined;
  const target = steps.findIndex((x) => x.id === jump.goto);
  if (target > i) return target;
  const tried = s.attempts.get(step.id) ?? 1;
  return tried < (jump.maxAttempts ?? 1) ? target : undefined;
}

async function finish(
  o: RunWorkflowOptions,
  outcome: RunOutcome,
): Promise<RunOutcome> {
  await o.journal.record({
    type: "run_end",
    status: outcome.status,
    ...(outcome.step ? { step: outcome.step } : {}),
  });
  return outcome;
}

// One attempt at a step: taken from the journal when an earlier run recorded it, else run.
async function stepOnce(
  s: RunState,
  step: WorkflowStep,
  runSignal: AbortSignal,
): Promise<StepResult> {
  const { o } = s;
  const attempt = (s.attempts.get(step.id) ?? 0) + 1;
  s.attempts.set(step.id, attempt);
  const text = "approve" in step ? render(step.approve, s.scope) : undefined;
  const done = s.recorded[0]?.step === step.id ? s.recorded.shift() : undefined;
  const earlier = done ? { ok: done.status === "completed" } : undefined;
  o.sink.update(
    stepToolCall(o.runId, step, s.titles.get(step.id)!, text, earlier),
  );
  let result: StepResult;
  if (done) result = { status: done.status, output: done.output };
  else {
    await o.journal.record({ type: "step_start", step: step.id, attempt });
    const signal = step.timeoutMs
      ? AbortSignal.any([runSignal, AbortSignal.timeout(step.timeoutMs)])
      : runSignal;
    result = await execute(s, step, text, signal);
    if (o.mask) result = { ...result, output: o.mask(result.output) };
    if (!result.unanswered)
      await o.journal.record({
        type: "step_end",
        step: step.id,
        attempt,
        status: result.status,
        output: result.output,
      });
  }
  const end = stepToolCallEnd(
    o.runId,
    step,
    result.status === "completed",
    result.output,
    done !== undefined,
  );
  // A gate still waiting for an answer has not failed: its tool call stays pending.
  o.sink.update(
    result.status === "waiting" ? { ...end, status: "pending" } : end,
  );
  return result;
}

// Runs one step by its kind.
async function execute(
  s: RunState,
  step: WorkflowStep,
  gateText: string | undefined,
  signal: AbortSignal,
): Promise<StepResult> {
  const { o } = s;
  const servers = (extra: unknown[] | undefined): McpServer[] =>
    toAcpServers([
      ...(o.workflow.spec.mcpServers ?? []),
      ...((extra as never[]) ?? []),
    ]);
  if ("approve" in step) {
    const question = {
      stepId: step.id,
      toolCallId: stepToolCallId(o.runId, step.id),
      title: s.titles.get(step.id)!,
      text: gateText ?? "",
    };
    const yes = await o.gate.ask(question, signal).catch(() => false);
    if (signal.aborted) return { status: "cancelled", output: "" };
    // Nobody could answer: the run waits there (a resumed run asks again), nothing is refused.
    if (yes === undefined)
      return { status: "waiting", output: "waiting", unanswered: true };
    return yes
      ? { status: "completed", output: "approved" }
      : { status: "rejected", output: "rejected" };
  }
  if ("run" in step)
    return runShell(o, render(step.run, s.scope), signal, {
      env: runEnv(
        s.scope,
        o.workflow.spec.steps.map((x) => x.id),
      ),
      preapproved: step.preapproved === true,
    });
  if ("parallel" in step) {
    const branches = step.parallel.map((branch, i) => ({
      id: branchStepId(step.id, branch, i),
      branch,
      prompt: render(branch.prompt, s.scope),
      mcpServers: servers(branch.mcpServers),
    }));
    return runParallel(o, step.id, branches, signal);
  }
  return runAgentTurn(
    o,
    step.id,
    step,
    render(step.prompt, s.scope),
    servers(step.mcpServers),
    signal,
  );
}

// The error a run's end means for a caller that reports errors (cancelled is a normal end).
export function outcomeError(outcome: RunOutcome): HubError | undefined {
  const step = outcome.step ?? "";
  const details = { step };
  const tail = outcome.output.slice(-2000).trim();
  switch (outcome.status) {
    case "failed":
      return new HubError(
        "WORKFLOW_STEP_FAILED",
        `step ${step} failed${tail ? `: ${tail}` : ""}`,
        { details },
      );
    case "rejected":
      return new HubError(
        "WORKFLOW_GATE_REJECTED",
        `the gate ${step} was rejected; the run stopped`,
        { details },
      );
    case "waiting":
      return new HubError(
        "WORKFLOW_GATE_REJECTED",
        `the gate ${step} is waiting for an answer; the run stopped there`,
        { details },
      );
    case "timeout":
      return new HubError(
        "WORKFLOW_TIMEOUT",
        `step ${step} did not finish in time; the run stopped`,
        { details },
      );
    default:
      return undefined;
  }
}

// How a step that ended shows in the plan: a gate still waiting for an answer is still pending.
function planStateOf(status: StepStatus): PlanState {
  if (status === "completed") return "completed";
  return status === "waiting" ? "pending" : "failed";
}
