// What the hub adds to the environment of one user's agent process (issue 36): that user's
// secrets by name, and the agent's config `env` with every `${secret:NAME}` replaced by the
// user's value. Implemented in app/ (which holds the secrets key); called where a user's agent
// process is started.

/** The variables to add for `user`'s process of `agent`; a missing `${secret:NAME}` throws. */
export type AgentEnvSource = (
  user: string,
  agent: string,
  configEnv: Record<string, string>,
) => Promise<Record<string, string>>;
