// What `acphub agents list` asks: every agent acphub knows, how it would launch (its
// environment left out), whether it is installed, and which one is the default.
import {
  defaultAgentName,
  installed,
  knownAgentNames,
  resolveAgent,
} from "../agents/registry.js";
import type { Config } from "../config/schema.js";

// One row per known agent.
export function agentRows(config: Config) {
  const fallback = defaultAgentName(config);
  return knownAgentNames(config).map((name) => {
    const launch = resolveAgent(name, config);
    const { env: _env, ...shown } = launch;
    return {
      ...shown,
      installed: installed(launch),
      default: name === fallback,
    };
  });
}
