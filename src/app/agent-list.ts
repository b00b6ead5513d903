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

// How an agent's row reads for people: its state, and where it came from with its version.
export function agentRowText(r: ReturnType<typeof agentRows>[number]): string {
  const via = r.distribution ?? (r.source === "npx" ? "npx" : undefined);
  const state = r.installed
    ? "installed"
    : via
      ? `via ${via}`
      : "not installed";
  const from = [r.origin, r.version].filter(Boolean).join(" ");
  const how = [r.command, ...r.args].join(" ");
  const hint = r.installHint && !r.installed ? `   (${r.installHint})` : "";
  return `${r.default ? "*" : " "} ${r.name.padEnd(10)} ${state.padEnd(14)} ${from.padEnd(17)} ${how}${hint}\n`;
}

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
