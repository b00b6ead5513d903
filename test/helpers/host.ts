// Connects the mock agent with acphub's real host services, for the attack suites.
import type { AgentConnection } from "../../src/agents/connection.js";
import type {
  ClientRequestEvent,
  RunEvent,
} from "../../src/contracts/events.js";
import type { PermissionMode } from "../../src/config/schema.js";
import {
  createHost,
  type HostOptions,
  type HostServices,
} from "../../src/host/create-host.js";
import {
  PermissionEngine,
  type Approver,
} from "../../src/host/permission-engine.js";
import { collect, connectMock, steps } from "./mock.js";

export interface HostedAgent {
  agent: AgentConnection;
  host: HostServices;
  close(): Promise<void>;
  /** Runs one turn of steps in a session rooted at `cwd`; returns its events. */
  turn(cwd: string, ...list: Record<string, unknown>[]): Promise<RunEvent[]>;
}

export async function hostedMock(
  mode: PermissionMode = "approve-all",
  options: Partial<HostOptions> & { approver?: Approver } = {},
): Promise<HostedAgent> {
  const host = createHost({
    engine: new PermissionEngine({ mode, approver: options.approver }),
    sandbox: { mode: "off" },
    ...options,
  });
  const agent = await connectMock([], { host });
  return {
    agent,
    host,
    close: async () => {
      await agent.close();
      host.close();
    },
    turn: async (cwd, ...list) => {
      const session = await agent.newSession({ cwd });
      return collect(session.prompt(steps(...list)));
    },
  };
}

export const requests = (events: RunEvent[]) =>
  events.filter((e): e is ClientRequestEvent => e.type === "client_request");
