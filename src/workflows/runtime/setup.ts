// What every `acphub flow` command needs: where workflows live and how names are checked.
import { dirname, join } from "node:path";
import { knownAgentNames, resolveAgent } from "../../agents/registry.js";
import type { HubPaths } from "../../config/paths.js";
import type { Config } from "../../config/schema.js";
import { filterEnv } from "../../shared/env-filter.js";
import { SecretMasker } from "../../shared/secrets.js";
import type { WorkflowDirs } from "../discover.js";
import type { LoadOptions } from "../load.js";

// acphub's own workflows folder: $ACPHUB_HOME/workflows, else next to the config file.
export function homeWorkflowsDir(paths: HubPaths): string {
  const home = process.env["ACPHUB_HOME"];
  return home
    ? join(home, "workflows")
    : join(dirname(paths.configFile), "workflows");
}

export function workflowDirs(paths: HubPaths, cwd: string): WorkflowDirs {
  return { cwd, homeDir: homeWorkflowsDir(paths) };
}

// Agent names are those the registry or config can start; env names those the filter passes.
export function loadOptions(config: Config): LoadOptions {
  const userAllow = config.env?.allow ?? [];
  return {
    knownAgent: (name) => {
      try {
        resolveAgent(name, config);
        return true;
      } catch {
        return false;
      }
    },
    envAllowed: (name) => name in filterEnv({ [name]: "1" }, { userAllow }),
    agentNames: () => knownAgentNames(config),
  };
}

/** The environment `{{ env.NAME }}` reads: only what the filter passes. */
export function templateEnv(config: Config): Record<string, string> {
  return filterEnv(process.env, { userAllow: config.env?.allow ?? [] });
}

/** Hides the values of this process's secret-looking variables in what a run shows and keeps. */
export function secretMasker(): SecretMasker {
  return SecretMasker.fromEnv(process.env);
}
