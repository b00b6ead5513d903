// Turns an agent name into a launch: the user's config entries first, then the built-ins
// (installed binary, else `npx -y`), then the bundled mock agent.
import { fileURLToPath } from "node:url";
import type { AgentEntry, Config } from "../config/schema.js";
import { HubError } from "../shared/errors.js";
import { filterEnv } from "../shared/env-filter.js";
import { BUILTIN_AGENTS, type BuiltinAgent } from "./builtin-agents.js";
import { which } from "./which.js";
import { didYouMean } from "../shared/did-you-mean.js";

export const MOCK_AGENT_NAME = "mock";

export type LaunchSource =
  "config" | "installed" | "npx" | "not-installed" | "bundled";

export interface AgentLaunch {
  name: string;
  command: string;
  args: string[];
  /** The complete, filtered environment the agent process gets. */
  env: Record<string, string>;
  source: LaunchSource;
  description: string;
  /** How to install the agent, when it is not installed. */
  installHint?: string;
  /** Folders its process owns besides (a sandboxed agent's TMPDIR): recorded with the process,
   *  removed by the next acphub when this one was killed (agents/orphans.ts). */
  leftovers?: string[];
}

export interface ResolveOptions {
  /** The environment to filter for the agent (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Extra user-named variables to pass (config `env.allow`). */
  userAllow?: readonly string[];
  /** Finds executables; injectable for tests. */
  which?: (command: string) => string | undefined;
}

/** The CLI entry point, so the bundled mock agent can be launched as `node main.js mock-agent`. */
export const CLI_ENTRY = fileURLToPath(
  new URL("../cli/main.js", import.meta.url),
);

export function knownAgentNames(config: Config): string[] {
  const names = new Set([
    ...Object.keys(config.agents ?? {}),
    ...BUILTIN_AGENTS.map((a) => a.name),
    MOCK_AGENT_NAME,
  ]);
  return [...names].sort();
}

// The agent used when none is named: the config's default, else the bundled mock.
export function defaultAgentName(config: Config): string {
  return config.defaultAgent ?? MOCK_AGENT_NAME;
}

function fromConfig(
  name: string,
  entry: AgentEntry & { command: string },
  options: ResolveOptions,
): AgentLaunch {
  return {
    name,
    command: entry.command,
    args: entry.args ?? [],
    env: filterEnv(options.env ?? process.env, {
      userAllow: [...(entry.passEnv ?? []), ...(options.userAllow ?? [])],
      set: entry.env,
    }),
    source: "config",
    description: entry.description ?? `${entry.command} (from config)`,
  };
}

function fromBuiltin(
  agent: BuiltinAgent,
  options: ResolveOptions,
): AgentLaunch {
  const find =
    options.which ?? ((cmd: string) => which(cmd, options.env?.["PATH"]));
  const env = filterEnv(options.env ?? process.env, {
    registryAllow: agent.env,
    userAllow: options.userAllow,
  });
  const base = { name: agent.name, env, description: agent.description };
  const installed = find(agent.bin.command);
  if (installed)
    return {
      ...base,
      command: installed,
      args: agent.bin.args,
      source: "installed",
    };
  if (agent.npx) {
    const args = ["-y", agent.npx.package, ...agent.npx.args];
    return {
      ...base,
      command: "npx",
      args,
      source: "npx",
      installHint: agent.install,
    };
  }
  return {
    ...base,
    command: agent.bin.command,
    args: agent.bin.args,
    source: "not-installed",
    installHint: agent.install,
  };
}

function mockLaunch(options: ResolveOptions): AgentLaunch {
  return {
    name: MOCK_AGENT_NAME,
    command: process.execPath,
    args: [CLI_ENTRY, "mock-agent"],
    env: filterEnv(options.env ?? process.env, {
      userAllow: options.userAllow,
    }),
    source: "bundled",
    description:
      "acphub's scriptable mock agent (for trying acphub and for tests)",
  };
}

// Resolves a name to a launch, or fails with AGENT_NOT_FOUND listing the names it knows.
export function resolveAgent(
  name: string,
  config: Config,
  options: ResolveOptions = {},
): AgentLaunch {
  const userAllow = [
    ...(config.env?.allow ?? []),
    ...(options.userAllow ?? []),
  ];
  const opts = { ...options, userAllow };
  const entry = config.agents?.[name];
  if (entry?.command)
    return fromConfig(name, { ...entry, command: entry.command }, opts);
  const builtin = BUILTIN_AGENTS.find((a) => a.name === name);
  if (builtin) return fromBuiltin(builtin, opts);
  if (name === MOCK_AGENT_NAME) return mockLaunch(opts);
  const known = knownAgentNames(config);
  throw new HubError(
    "AGENT_NOT_FOUND",
    `unknown agent "${name}"${didYouMean(name, known)}; known agents: ${known.join(", ")}`,
    { details: { name, known } },
  );
}

// Whether an agent's command is there to run (npx-launched ones count as not installed).
export function installed(launch: AgentLaunch): boolean {
  if (launch.source === "npx" || launch.source === "not-installed")
    return false;
  return launch.source === "bundled" || which(launch.command) !== undefined;
}
