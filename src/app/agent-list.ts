// What `acphub agents list` asks: every agent acphub knows, how it would launch (its
// environment left out), whether it is installed, which one is the default, and where it came
// from (`origin`: built-in, config, registry — with the registry's version).
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
    const entry = config.agents?.[name];
    const r = entry?.registry;
    const origin = r ? "registry" : entry?.command ? "config" : "built-in";
    const viaPackage = r?.distribution === "npx" || r?.distribution === "uvx";
    return {
      ...shown,
      origin,
      version: r?.version,
      distribution: r?.distribution,
      installed: !viaPackage && installed(launch),
      default: name === fallback,
    };
  });
}
