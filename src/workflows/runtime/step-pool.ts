// The step agents of one run share processes: steps (and parallel branches) of the same agent in
// the same folder open their sessions in one warm process from an AgentPool, closed when the run
// ends. The process's permission requests are marked with the step whose session asks.
import { AgentPool, type PoolLease } from "../../agents/pool.js";
import { connectAgent } from "../../agents/connection.js";
import { resolveAgent } from "../../agents/registry.js";
import type { HostServices } from "../../host/create-host.js";
import type { Logger } from "../../shared/logger.js";
import { markStepRequest } from "../updates.js";
import { connectionLimits } from "../../agents/limits.js";
import type { AppContext } from "../../config/context.js";

/** A run's step agent processes. */
export interface StepPool {
  acquire(agent: string, cwd: string, signal: AbortSignal): Promise<PoolLease>;
  /** Marks the permission requests of an agent session with its step; returns the undo. */
  bind(agentSessionId: string, stepId: string): () => void;
  close(): Promise<void>;
}

/** Processes a run may keep at once (a parallel step has at most 16 branches). */
const MAX_STEP_PROCESSES = 32;

export function stepPool(
  ctx: AppContext,
  host: HostServices,
  logger: Logger,
  /** The step agent's environment as it starts (the agents' own telemetry). */
  agentEnv?: (
    agent: string,
    env: Record<string, string>,
  ) => Record<string, string>,
): StepPool {
  const steps = new Map<string, string>();
  const pool = new AgentPool({
    maxProcesses: MAX_STEP_PROCESSES,
    logger,
    connect: (key) => {
      const launch = resolveAgent(key.agent, ctx.config);
      return connectAgent({
        launch: agentEnv
          ? { ...launch, env: agentEnv(key.agent, launch.env) }
          : launch,
        cwd: key.cwd,
        logger,
        host: routedHost(host, steps),
        stateDir: ctx.paths.stateDir,
        ...connectionLimits(ctx.config),
      });
    },
  });
  return {
    acquire: (agent, cwd, signal) => pool.acquire({ agent, cwd }, signal),
    bind: (agentSessionId, stepId) => {
      steps.set(agentSessionId, stepId);
      return () => steps.delete(agentSessionId);
    },
    close: () => pool.close(),
  };
}

// The host as a shared step process sees it: each permission request marked with the step of
// the session asking, so the client is asked about that step's prefixed tool call id.
function routedHost(
  host: HostServices,
  steps: ReadonlyMap<string, string>,
): HostServices {
  const ask = host.requestPermission;
  if (!ask) return host;
  return {
    ...host,
    requestPermission: (request, ctx) => {
      const step = steps.get(request.sessionId);
      return ask(step ? markStepRequest(step, request) : request, ctx);
    },
  };
}
