// The user of the request being handled, carried from the HTTP edge to the ACP connection the
// SDK creates for it (its agent factory takes no request). It was an AsyncLocalStorage around
// the SDK's handlers: that turns on promise hooks for the whole process, so every promise of the
// relay (several per update per client) paid for them. The connection is created synchronously
// inside a call we make (the WebSocket upgrade; for Streamable HTTP, the factory given with that
// request), so a variable set around that call says the same.
import type { AgentFactory } from "@agentclientprotocol/sdk/experimental/server";
import type { HubUser } from "../contracts/users.js";

let creating: HubUser | undefined;

/** Runs `work` as `user`: a connection it creates synchronously is that user's. */
export function runAs<T>(user: HubUser, work: () => T): T {
  const prior = creating;
  creating = user;
  try {
    return work();
  } finally {
    creating = prior;
  }
}

/** The user of the request that is creating a connection now, if any. */
export function currentUser(): HubUser | undefined {
  return creating;
}

/** The agent factory for one request: the connection it makes is `user`'s. */
export function factoryAs(factory: AgentFactory, user: HubUser): AgentFactory {
  return () => {
    const agent = factory();
    return {
      connect: (stream, options) =>
        runAs(user, () => agent.connect(stream, options)),
    };
  };
}
