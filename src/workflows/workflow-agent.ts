// The agent behind `acphub acp --workflow NAME`: the workflow itself, in acphub's own process.
// The gateway needs an agent for initialize and for each session, but every prompt of such a
// session runs the workflow (a session command), so nothing here spawns a process: the step agents
// are started by the run, when their steps run.
import { randomUUID } from "node:crypto";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import type {
  AgentPort,
  AgentSessionPort,
  SessionOpenParams,
} from "../engine/ports.js";
import { HubError } from "../shared/errors.js";

// One session: it holds no conversation of its own (the ledger and the run journal do).
function workflowSession(
  name: string,
  id: string = randomUUID(),
): AgentSessionPort {
  const refuse = (what: string) =>
    Promise.reject(
      new HubError("UNSUPPORTED", `workflow ${name} has no ${what}`),
    );
  return {
    id,
    state: {},
    prompt: () => {
      // Never reached: the gateway gives every prompt to the workflow (hub-commands.ts).
      throw new HubError("UNSUPPORTED", `workflow ${name} takes no agent turn`);
    },
    cancel: () => undefined,
    onEvent: () => () => undefined,
    setMode: () => refuse("session modes"),
    setConfigOption: () => refuse("config options"),
  };
}

/** The workflow NAME as the agent of a gateway, with no process behind it. */
export function workflowAgent(name: string): AgentPort {
  const initializeResponse: InitializeResponse = {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: false,
      promptCapabilities: {},
      mcpCapabilities: { http: false, sse: false },
    },
    authMethods: [],
    agentInfo: {
      name: `workflow:${name}`,
      title: `workflow ${name}`,
      version: "1",
    },
  };
  const session = (id?: string) => Promise.resolve(workflowSession(name, id));
  return {
    alive: true,
    inProcess: true,
    initializeResponse,
    supports: () => false,
    newSession: () => session(),
    loadSession: async (id: string) => ({ session: await session(id) }),
    resumeSession: (id: string) => session(id),
    forkSession: (_id: string, _params: SessionOpenParams) => session(),
    closeSession: () => Promise.resolve(),
    deleteSession: () => Promise.resolve(),
    authenticate: () => Promise.resolve(),
    request: (method: string) =>
      Promise.reject(
        new HubError(
          "UNSUPPORTED",
          `workflow ${name} does not answer ${method}`,
        ),
      ),
    notify: () => undefined,
    close: () => Promise.resolve(),
  };
}
