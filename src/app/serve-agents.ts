// The agents `acphub serve` offers (issue 34): only those its config names (`agents`,
// `defaultAgent`) or its `--agent` flag; with none named, the bundled mock agent, for admins
// only, so a hub with no config still works for its operator. Which of them each role or user
// may start comes from config `users.agents` (hub/agent-rules.ts).
import {
  installed,
  MOCK_AGENT_NAME,
  resolveAgent,
} from "../agents/registry.js";
import type { Config } from "../config/schema.js";
import type { HubUser } from "../contracts/users.js";
import { AgentRules } from "../hub/agent-rules.js";
import type { Logger } from "../shared/logger.js";

// The offered agents, the default one, and who may start which.
export function serveAgentRules(
  config: Config,
  flag: string | undefined,
  logger: Logger,
): AgentRules {
  const named = [
    ...(flag ? [flag] : []),
    ...(config.defaultAgent ? [config.defaultAgent] : []),
    ...Object.keys(config.agents ?? {}),
  ];
  const unnamed = named.length === 0;
  const defaultAgent = named[0] ?? MOCK_AGENT_NAME;
  resolveAgent(defaultAgent, config); // fails early on an unknown name
  const offered = [...new Set(unnamed ? [MOCK_AGENT_NAME] : named)].filter(
    (name) => resolves(name, config, logger),
  );
  return new AgentRules({
    offered: offered.sort(),
    defaultAgent,
    unnamed,
    byName: config.users?.agents,
    stdioMcpServers: config.users?.stdioMcpServers,
  });
}

// A configured name that is no agent (an entry with options only, for no registry agent) is
// left out with a warning rather than stopping serve.
function resolves(name: string, config: Config, logger: Logger): boolean {
  try {
    resolveAgent(name, config);
    return true;
  } catch (error) {
    logger.warn({ agent: name, err: error }, "configured agent left out");
    return false;
  }
}

// `_acphub/agents` for one user: the agents they may start, each with how it runs.
export function agentsFor(
  rules: AgentRules,
  config: Config,
  user: HubUser | undefined,
): unknown[] {
  return rules.startable(user).map((name) => {
    const launch = resolveAgent(name, config);
    return {
      name,
      title: launch.description ?? name,
      installed: installed(launch),
      source: launch.source,
      default: name === rules.defaultAgent,
    };
  });
}
