// One workflow run executed, wherever it was started (`flow run`/`flow resume` at a terminal,
// a workflow command in an editor's session): its step agents, shell, gates and shown updates.
import type { BudgetPort } from "../../engine/budget-port.js";
import type { LedgerPort } from "../../engine/ports.js";
import type { EngineEvents } from "../../engine/events.js";
import type { AppContext } from "../../config/context.js";
import type { HostServices } from "../../host/create-host.js";
import type { GatePort } from "../ports.js";
import { runWorkflow, type RunOutcome } from "../runner.js";
import { secretMasker, templateEnv } from "./setup.js";
import { ledgerJournal, shellPort, stepAgents } from "./ports.js";
import type { PlannedRun } from "./run-session.js";

export interface RunExecution {
  ctx: AppContext;
  ledger: LedgerPort;
  /** The run's host (its step agents' files, terminals and permission questions). */
  host: HostServices;
  run: PlannedRun;
  gate: GatePort;
  /** Each update to show, its known secrets masked. */
  show(update: Record<string, unknown>): void;
  signal: AbortSignal;
  /** The editor's own MCP servers, when the run is inside its session. */
  editorServers?: Parameters<typeof stepAgents>[0]["editorServers"];
  /** limits.budget for the step agents. */
  budget?: BudgetPort;
  /** Who hears each step turn (tracing), by the step's agent. */
  events?: (agent: string) => EngineEvents;
  /** A step agent's environment as it starts (the agents' own telemetry). */
  agentEnv?: (
    agent: string,
    env: Record<string, string>,
  ) => Record<string, string>;
}

// Runs (or continues) the planned run to its outcome; its step agents are closed after.
export async function executeRun(x: RunExecution): Promise<RunOutcome> {
  const { ctx, ledger, host, run } = x;
  host.onSessionStart?.(run.runId, { cwd: run.cwd });
  const agents = stepAgents({
    ctx,
    host,
    ledger,
    runId: run.runId,
    logger: ctx.logger,
    ...(x.editorServers ? { editorServers: x.editorServers } : {}),
    ...(x.budget ? { budget: x.budget } : {}),
    ...(x.events ? { events: x.events } : {}),
    ...(x.agentEnv ? { agentEnv: x.agentEnv } : {}),
  });
  const masker = secretMasker();
  try {
    return await runWorkflow({
      runId: run.runId,
      workflow: run.workflow,
      input: run.input,
      cwd: run.cwd,
      env: templateEnv(ctx.config),
      mask: (text) => masker.mask(text),
      recorded: run.recorded,
      agents,
      shell: shellPort(host, run.runId),
      gate: x.gate,
      sink: {
        update: (u) => x.show(masker.maskValue(u) as Record<string, unknown>),
      },
      journal: ledgerJournal(ledger, run.runId),
      signal: x.signal,
    });
  } finally {
    await agents.close();
  }
}
