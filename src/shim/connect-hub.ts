// `connectHub(url, {token})`: the same connection and session API as a local agent, reaching a
// running `acphub serve` instead. The "agent" it drives is acphub's own stdio shim
// (`acphub acp --hub URL`), so a client of the library also survives the hub restarting.
import { filterEnv } from "../shared/env-filter.js";
import {
  connectAgent,
  type AgentConnection,
  type ConnectOptions,
} from "../agents/connection.js";
import { CLI_ENTRY, type AgentLaunch } from "../agents/registry.js";

export interface ConnectHubOptions extends Omit<ConnectOptions, "launch"> {
  /** The hub's bearer token. */
  token: string;
}

/** How to launch the shim to a hub, as an agent launch. */
export function hubLaunch(url: string, token: string): AgentLaunch {
  return {
    name: "hub",
    command: process.execPath,
    args: [CLI_ENTRY, "acp", "--hub", url],
    env: { ...filterEnv(process.env, {}), ACPHUB_TOKEN: token },
    source: "bundled",
    description: `the acphub hub at ${url}`,
  };
}

// Connects to a running hub; resolves once `initialize` has been answered through it.
export function connectHub(
  url: string,
  options: ConnectHubOptions,
): Promise<AgentConnection> {
  const { token, ...rest } = options;
  return connectAgent({
    ...rest,
    launch: hubLaunch(url, token),
    agentIsHub: true,
  });
}
