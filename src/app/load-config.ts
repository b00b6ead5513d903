// Loads the config file for a command (light: `run` calls it before the rest of acphub loads).
import { knownAgentNames } from "../agents/registry.js";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { HubError } from "../shared/errors.js";

export interface ConfigOptions {
  config?: string;
}

// The config file, checked also for what its schema cannot know: that `defaultAgent` names an
// agent acphub knows (else every command would fail later without naming the file).
export function loadCliConfig(options: ConfigOptions): LoadedConfig {
  const loaded = loadConfig({ configFile: options.config });
  checkDefaultAgent(loaded.config, loaded.paths.configFile);
  return loaded;
}

export function checkDefaultAgent(config: Config, file: string): void {
  const name = config.defaultAgent;
  if (name === undefined) return;
  const known = knownAgentNames(config);
  if (known.includes(name)) return;
  throw new HubError(
    "CONFIG_INVALID",
    `config file ${file}: defaultAgent: unknown agent "${name}"${didYouMean(name, known)}; known agents: ${known.join(", ")}`,
    { details: { file, name, known } },
  );
}
