// The secrets port of a hub's agents (issue 36): what a user's agent process gets in its
// environment beyond what acphub builds itself. Implemented where users' secrets are kept; the
// hub asks it when a session of that user is opened, before anything starts.

/**
 * The variables to add to a user's agent's environment: their secrets, with the `${secret:NAME}`
 * references of the agent's config entry `env` (`configEnv`) resolved. Throws a HubError naming a
 * missing secret (and how to set it): the session is then refused, nothing recorded.
 */
export type AgentEnvSource = (
  user: string,
  agent: string,
  configEnv: Record<string, string>,
) => Promise<Record<string, string>>;
