// The concrete parts a workflow run uses from the CLI: step agents (each step in its own
// session, in a process the run's steps of that agent share; each session recorded in the
// ledger as a child of the run's session), shell steps under the terminal policy, and the ledger
// as the run's journal.
import { randomUUID } from "node:crypto";
import type { RunEvent } from "../../contracts/events.js";
import type { BudgetPort } from "../../engine/budget-port.js";
import type { AgentSessionPort, LedgerPort } from "../../engine/ports.js";
import { CostMeter, recordTurnUsage } from "../../engine/turn-usage.js";
import type { HostServices } from "../../host/create-host.js";
import type { Logger } from "../../shared/logger.js";
import { mergeServers, serversFor } from "../../shared/mcp-servers.js";
import { agentServers } from "../../agents/agent-mcp.js";
import type {
  JournalEntry,
  RunJournal,
  ShellPort,
  StepAgents,
  StepSession,
  StepSessionOptions,
} from "../ports.js";
import type { AppContext } from "../../config/context.js";
import { stepPool, type StepPool } from "./step-pool.js";
import type { EngineEvents } from "../../engine/events.js";
import { stepTurns, type StepTurns } from "./step-trace.js";

export interface StepAgentWiring {
  ctx: AppContext;
  host: HostServices;
  ledger: LedgerPort;
  runId: string;
  /** The editor's own servers (session/new), which win over the workflow's on a name. */
  editorServers?: Parameters<typeof mergeServers>[0];
  logger: Logger;
  /** limits.budget: a step whose agent's budget is spent is refused before its session opens. */
  budget?: BudgetPort;
  /** Who hears each step turn (tracing), by the step's agent. */
  events?: (agent: string) => EngineEvents;
  /** A step agent's environment as it starts (the agents' own telemetry). */
  agentEnv?: (
    agent: string,
    env: Record<string, string>,
  ) => Record<string, string>;
}

/** A run's step agents: close them when the run ends. */
export interface RunStepAgents extends StepAgents {
  close(): Promise<void>;
}

// Opens each step's session in a process of its agent, shared by the run's steps of that agent.
export function stepAgents(w: StepAgentWiring): RunStepAgents {
  const pool = stepPool(w.ctx, w.host, w.logger, w.agentEnv);
  return {
    open: (agent, options) => openStep(w, pool, agent, options),
    close: () => pool.close(),
  };
}

async function openStep(
  w: StepAgentWiring,
  pool: StepPool,
  agent: string,
  o: StepSessionOptions,
): Promise<StepSession> {
  const { config } = w.ctx;
  const id = randomUUID();
  await w.budget?.admit({ sessionId: id, agent });
  const lease = await pool.acquire(agent, o.cwd, o.signal);
  const { connection } = lease;
  try {
    const caps =
      connection.initializeResponse?.agentCapabilities?.mcpCapabilities;
    const merged = mergeServers(
      agentServers(config, agent),
      o.mcpServers,
      w.editorServers ?? [],
    );
    const { servers, warnings } = serversFor(merged, caps);
    for (const warning of warnings)
      w.logger.warn({ agent, step: o.stepId }, warning);
    const session = await connection.newSession({
      cwd: o.cwd,
      mcpServers: servers,
    });
    const unbind = pool.bind(session.id, o.stepId);
    const now = Date.now();
    await w.ledger.createSession({
      id,
      agent,
      cwd: o.cwd,
      title: `${w.runId} · ${o.stepId}`,
      createdAt: now,
      updatedAt: now,
      state: "active",
      agentSessionId: session.id,
      request: {
        mcpServers: servers,
        _meta: { acphub: { parentSession: w.runId, step: o.stepId } },
      },
    });
    const usage = stepUsage(w, id, agent);
    const turns = stepTurns(w.events?.(agent), id, o.cwd);
    return {
      id,
      session: recordedPrompts(
        session,
        w.ledger,
        id,
        w.logger,
        usage.began,
        turns,
      ),
      record: (event) => {
        turns.heard(event);
        usage.heard(event);
        recordEvent(w.ledger, id, event, w.logger);
      },
      ended: (r) => {
        kept(
          w.ledger.append(id, "turn_end", {
            stopReason: r.stopReason,
            ...(r.usage ? { usage: r.usage } : {}),
          }),
          w.logger,
          id,
        );
        usage.ended(r.usage);
        turns.ended(r);
      },
      close: async () => {
        turns.closed();
        unbind();
        if (connection.alive && connection.supports("close"))
          await connection.closeSession(session.id).catch(() => undefined);
        lease.release();
      },
    };
  } catch (error) {
    lease.release();
    throw error;
  }
}

// A step session's usage: each of its turns recorded in the ledger's usage table as it ends
// (the session is new: its cumulative cost starts at nothing).
function stepUsage(w: StepAgentWiring, id: string, agent: string) {
  let meter = new CostMeter();
  let turns = 0;
  let lastCost = 0;
  return {
    began: () => {
      turns += 1;
      meter = new CostMeter();
    },
    heard: (event: RunEvent) => meter.heard(event),
    ended: (usage: Record<string, unknown> | null | undefined) => {
      const knownCost = lastCost;
      lastCost = meter.last ?? lastCost;
      const turn = { sessionId: id, agent, promptSeq: `step-${turns}` };
      recordTurnUsage({
        ledger: w.ledger,
        turn,
        meter,
        usage,
        knownCost,
      }).catch((error: unknown) =>
        w.logger.warn({ err: error, sessionId: id }, "step usage not recorded"),
      );
    },
  };
}

// The session, with each prompt kept in its ledger history first (appended in call order).
function recordedPrompts(
  session: AgentSessionPort,
  ledger: LedgerPort,
  id: string,
  logger: Logger,
  began: () => void,
  turns: StepTurns,
): AgentSessionPort {
  return {
    id: session.id,
    state: session.state,
    prompt: (blocks, options) => {
      began();
      kept(ledger.append(id, "prompt", { prompt: blocks }), logger, id);
      const meta = turns.began(blocks);
      return session.prompt(
        blocks,
        meta ? { ...options, meta: { ...options.meta, ...meta } } : options,
      );
    },
    cancel: () => session.cancel(),
    onEvent: (listener) => session.onEvent(listener),
    setMode: (mode) => session.setMode(mode),
    setConfigOption: (cid, value) => session.setConfigOption(cid, value),
  };
}

// Keeps a step agent's event in its session's history (appended in arrival order).
function recordEvent(
  ledger: LedgerPort,
  id: string,
  event: RunEvent,
  logger: Logger,
): void {
  if (event.type === "session_update")
    kept(
      ledger.append(
        id,
        "update",
        event.meta
          ? { update: event.update, _meta: event.meta }
          : { update: event.update },
      ),
      logger,
      id,
    );
  else if (event.type === "permission")
    kept(
      ledger.append(id, "permission", {
        request: event.request,
        outcome: event.outcome,
        decidedBy: event.decidedBy,
      }),
      logger,
      id,
    );
}

// A step session's append not waited for: a failure is logged, never an unhandled rejection.
function kept(append: Promise<number>, logger: Logger, id: string): void {
  append.catch((error: unknown) =>
    logger.warn({ err: error, sessionId: id }, "ledger: step event not stored"),
  );
}

// Shell steps run as the host's own terminals: the command policy, the permission policy,
// the roots and the OS sandbox, the one path every terminal acphub starts goes through. The
// template values go in as variables; the command text is only what the workflow file says.
export function shellPort(host: HostServices, sessionId: string): ShellPort {
  return {
    run: async (command, cwd, signal, { env, preapproved }) => {
      const t = host.terminals;
      const { terminalId } = await host.startTerminal(
        sessionId,
        { command: "sh", args: ["-c", command], cwd, env },
        signal,
        preapproved,
      );
      const kill = () => t.kill(sessionId, terminalId);
      signal.addEventListener("abort", kill, { once: true });
      try {
        const status = await t.waitForExit(
          sessionId,
          terminalId,
          new AbortController().signal,
        );
        return {
          exitCode: status.exitCode,
          output: t.output(sessionId, terminalId).output,
        };
      } finally {
        signal.removeEventListener("abort", kill);
        t.release(sessionId, terminalId);
      }
    },
  };
}

// The run's journal: one `workflow` event per entry in the run's own ledger session.
export function ledgerJournal(ledger: LedgerPort, runId: string): RunJournal {
  return {
    record: async (entry) => {
      await ledger.append(runId, "workflow", { ...entry });
    },
  };
}

// What a run's journal kept, in order.
export async function readJournal(
  ledger: LedgerPort,
  runId: string,
): Promise<JournalEntry[]> {
  return (await ledger.events(runId))
    .filter((e) => e.kind === "workflow")
    .map((e) => e.payload as unknown as JournalEntry);
}
