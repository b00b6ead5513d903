// The agent `acphub run` starts before the rest of acphub loads, so its start-up overlaps
// with loading; handed to the local client once it is built.
import { AgentProcess } from "../agents/agent-process.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { defaultAgentName, resolveAgent } from "../agents/registry.js";
import type { AgentLaunch } from "../agents/registry.js";
import type { Config } from "../config/schema.js";
import type { LoadedConfig } from "../config/load.js";

export type { AgentProcess };

/** How long a cancelled turn may take to end before its agent is killed (config or default). */
export function cancelGraceMsOf(config: Config): number {
  return config.timeouts?.cancelGraceMs ?? DEFAULT_LIMITS.cancelGraceMs;
}

// Spawns the named (or default) agent in the sandbox config asks for, or the given launch.
export async function prespawnAgent(
  loaded: LoadedConfig,
  agent: string | undefined,
  cwd: string,
  launch?: AgentLaunch,
): Promise<AgentProcess> {
  const { config, paths } = loaded;
  const { sandboxedLaunch } = await import("./sandbox.js");
  const spawned =
    launch ??
    (await sandboxedLaunch(
      resolveAgent(agent ?? defaultAgentName(config), config),
      config,
      paths,
      cwd,
    ));
  const stderrTailBytes =
    config.limits?.stderrTailBytes ?? DEFAULT_LIMITS.stderrTailBytes;
  return new AgentProcess(spawned, { cwd, stderrTailBytes });
}
