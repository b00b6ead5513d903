// Workflows as commands of `acphub acp` sessions: advertised next to the agent's own, run
// inside the session with gates asked of the editor (`session/request_permission`).
import type { BudgetPort } from "../../engine/budget-port.js";
import { randomUUID } from "node:crypto";
import type { RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type {
  SessionCommand,
  SessionCommandContext,
  SessionCommandsPort,
  LedgerPort,
} from "../../engine/ports.js";
import { listWorkflows, findWorkflow } from "../discover.js";
import { resumePoint } from "../journal.js";
import { loadWorkflowFile } from "../load.js";
import type { GatePort } from "../ports.js";
import { outcomeError } from "../runner.js";
import { clientPermissionRequest } from "../updates.js";
import type { AppContext } from "../../config/context.js";
import type { HostServices } from "../../host/create-host.js";
import type { Approver } from "../../host/permission-engine.js";
import { loadOptions, workflowDirs } from "./setup.js";
import { ledgerJournal } from "./ports.js";
import { startRun, type PlannedRun } from "./run-session.js";
import { executeRun, type RunExecution } from "./execute-run.js";
import { InterruptedRuns, type InterruptedRun } from "./continue.js";

const GATE_OPTIONS = [
  { optionId: "approve", name: "Approve", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

// The workflows of a folder that load, as commands.
function commandsIn(ctx: AppContext, cwd: string): SessionCommand[] {
  const out: SessionCommand[] = [];
  for (const entry of listWorkflows(workflowDirs(ctx.paths, cwd))) {
    try {
      const { spec } = loadWorkflowFile(entry.file, loadOptions(ctx.config));
      out.push({
        name: spec.name,
        description: spec.description ?? `workflow ${spec.name}`,
        ...(spec.input
          ? { input: { hint: spec.input.description ?? "input" } }
          : {}),
      });
    } catch (error) {
      ctx.logger.warn(
        { file: entry.file, err: error },
        "workflow not offered: it does not load",
      );
    }
  }
  return out;
}

// A gate is a permission question to the editor: approve or reject, the text as content.
function editorGate(
  c: SessionCommandContext,
  shown: () => Promise<void>,
): GatePort {
  return {
    ask: async (q, signal) => {
      // Everything shown so far reaches the editor first (updates are stored, then sent).
      await shown();
      const { outcome } = await c.request<{
        outcome: RequestPermissionOutcome;
      }>(
        "session/request_permission",
        {
          sessionId: c.sessionId,
          toolCall: {
            toolCallId: q.toolCallId,
            title: q.title,
            kind: "other",
            status: "pending",
            content: [
              { type: "content", content: { type: "text", text: q.text } },
            ],
          },
          options: GATE_OPTIONS,
        },
        signal,
      );
      if (outcome.outcome !== "selected") return undefined;
      return outcome.optionId === "approve";
    },
  };
}

/** Builds a run's host from the app's config; its step agents ask `approver`. */
export type RunHostFactory = (approver: Approver) => HostServices;

export function workflowCommands(
  ctx: AppContext,
  ledger: LedgerPort,
  hostFor: RunHostFactory,
  exclusive?: string,
  budget?: BudgetPort,
  /** The step turns' listeners and the step agents' env (tracing), when traced. */
  traced?: StepTracing,
): SessionCommandsPort {
  const interrupted = new InterruptedRuns(ledger);
  return {
    list: (cwd) => (exclusive ? [] : commandsIn(ctx, cwd)),
    ...(exclusive ? { exclusive } : {}),
    interrupted: async (sessionId) =>
      (await interrupted.find(sessionId))?.workflow,
    run: async (name, c) =>
      runInSession(
        ctx,
        ledger,
        hostFor,
        await planInSession(ctx, ledger, interrupted, name, c),
        c,
        budget,
        traced,
      ),
  };
}

type SessionRun = PlannedRun;

/** How a run's step turns are traced (app/flow-run.ts `stepTracing`). */
export type StepTracing = Pick<RunExecution, "events" | "agentEnv">;

// The run a prompt starts in an editor's session: the one a crash interrupted there,
// continued from its journal, else a new run of the named workflow.
async function planInSession(
  ctx: AppContext,
  ledger: LedgerPort,
  interrupted: InterruptedRuns,
  name: string,
  c: SessionCommandContext,
): Promise<SessionRun> {
  const pending = await interrupted.take(c.sessionId);
  if (pending) return continued(ctx, ledger, pending, c);
  const workflow = findWorkflow(
    name,
    workflowDirs(ctx.paths, c.cwd),
    loadOptions(ctx.config),
  );
  const run = {
    workflow,
    runId: randomUUID(),
    cwd: c.cwd,
    input: c.input,
    recorded: [],
  };
  await startRun(ledger, run, name, c.sessionId);
  await interrupted.mark(c.sessionId, run.runId, name);
  return run;
}

// An interrupted run taken up again at its first step that did not complete; one that can
// no longer be (its file is gone or broken) is ended, so the session is not stuck on it.
async function continued(
  ctx: AppContext,
  ledger: LedgerPort,
  run: InterruptedRun,
  c: SessionCommandContext,
): Promise<SessionRun> {
  try {
    const { start, recorded } = resumePoint(run.runId, run.entries);
    const workflow = findWorkflow(
      start.workflow,
      workflowDirs(ctx.paths, start.cwd),
      loadOptions(ctx.config),
    );
    void c
      .tell(
        `acphub continues workflow run ${run.runId} (${start.workflow}), interrupted before it ended, at its first step that did not complete; this prompt's own text is not used.`,
      )
      .catch(() => undefined);
    const { input, cwd } = start;
    return { workflow, runId: run.runId, cwd, input, recorded };
  } catch (error) {
    await ledgerJournal(ledger, run.runId).record({
      type: "run_end",
      status: "failed",
    });
    throw error;
  }
}

// The host of a run in an editor's session: step agents' permission questions go to the editor.
function sessionHost(hostFor: RunHostFactory, c: SessionCommandContext) {
  return hostFor(
    async (request, signal) =>
      (
        await c.request<{ outcome: RequestPermissionOutcome }>(
          "session/request_permission",
          { ...clientPermissionRequest(request), sessionId: c.sessionId },
          signal,
        )
      ).outcome,
  );
}

// The step turns of a run in a session traced under the session's turn that started it (its
// `traceparent` given as the step turns' `_meta`), not as roots of their own.
function underTurn(
  traced: StepTracing,
  meta: Record<string, unknown> | undefined,
): StepTracing {
  const events = traced.events;
  if (!meta || !events) return traced;
  return {
    ...traced,
    events: (agent) => {
      const e = events(agent);
      return {
        ...e,
        turnStarted: (t) => e.turnStarted?.({ ...t, meta: t.meta ?? meta }),
      };
    },
  };
}

// One run inside an editor's session; its step agents ask the editor through this session.
async function runInSession(
  ctx: AppContext,
  ledger: LedgerPort,
  hostFor: RunHostFactory,
  run: SessionRun,
  c: SessionCommandContext,
  budget: BudgetPort | undefined,
  traced: StepTracing | undefined,
) {
  const host = sessionHost(hostFor, c);
  let shown = Promise.resolve();
  try {
    const outcome = await executeRun({
      ctx,
      ledger,
      host,
      run,
      gate: editorGate(c, () => shown),
      show: (u) => {
        shown = shown.then(() => c.send(u)).catch(() => undefined);
      },
      signal: c.signal,
      editorServers: c.mcpServers,
      ...(budget ? { budget } : {}),
      ...(traced ? underTurn(traced, c.meta) : {}),
    });
    await shown;
    const error = outcomeError(outcome);
    if (error) throw error;
    return {
      stopReason: outcome.status === "cancelled" ? "cancelled" : "end_turn",
    };
  } finally {
    host.close();
  }
}
