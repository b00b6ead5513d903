// A workflow run's step turns traced like an editor's turns (`flow run`, and workflow commands in
// `acp` and `chat` sessions), with each step agent's own spans joined to its turn.
import type { EngineEvents } from "../engine/events.js";
import { SecretMasker } from "../shared/secrets.js";
import type { Tracing } from "../telemetry/tracing.js";
import type { AgentTelemetry } from "../telemetry/agent-link.js";

// The step turns traced, and the step agents' own spans joined to them (one link per agent).
export function stepTracing(tracing: Tracing) {
  // One token per step agent for the session's life (bounded by the agents configured): a run's
  // step processes come and go with the run, more often than a gateway's.
  const links = new Map<
    string,
    AgentTelemetry & { env: Record<string, string> }
  >();
  return {
    agentEnv: (agent: string, env: Record<string, string>) => {
      const masker = SecretMasker.fromEnv({ ...process.env, ...env });
      const made = links.has(agent)
        ? undefined
        : tracing.agentTelemetry?.(agent, env, (t) => masker.mask(t));
      if (made) links.set(agent, { ...made, env: made.process().env });
      const link = links.get(agent);
      return link ? { ...env, ...link.env } : env;
    },
    events: (agent: string): EngineEvents => {
      const traced = tracing.listener(agent);
      const link = links.get(agent)?.events;
      return {
        ...traced,
        turnStarted: (e) => {
          traced.turnStarted?.(e);
          link?.turnStarted?.(e);
        },
        turnEnded: (e) => {
          traced.turnEnded?.(e);
          link?.turnEnded?.(e);
        },
      };
    },
  };
}
