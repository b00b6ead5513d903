// Each ACP connection is made with its own context, passed explicitly: the user of the request
// that opens it and, over a WebSocket, the wire its frames go out on (socket-wire.ts). The
// SDK's AcpServer takes the agent of one connection as an option of `handleRequest` and
// `prepareWebSocketUpgrade`; its node adapters call both without options, so they are given a
// view of the server whose two methods pass this connection's agent (nothing else differs).
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
  type NodeWebSocketUpgradeServer,
} from "@agentclientprotocol/sdk/experimental/node";
import type {
  AcpServer,
  AgentFactory,
  PreparedWebSocketUpgrade,
} from "@agentclientprotocol/sdk/experimental/server";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { HubUser } from "../contracts/users.js";
import { SocketWire } from "./socket-wire.js";

/** The agent side of one ACP connection, as the SDK takes it. */
export type AgentConnector = ReturnType<AgentFactory>;

/** What one new connection is given: whose it is, and (WebSocket) the wire it writes to. */
export interface ConnectionContext {
  user: HubUser;
  wire?: SocketWire;
}

/** Makes the agent side of a connection from its context (server/connection.ts). */
export type ConnectionFactory = (context: ConnectionContext) => AgentConnector;

/** The agent of a server whose every connection is made with its own: never used. */
export const NO_DEFAULT_AGENT: AgentConnector = {
  connect: () => {
    throw new Error("every ACP connection is made with its request's agent");
  },
};

// Serves one Streamable HTTP request: a connection its initialize creates is `user`'s.
export function serveHttp(
  acp: AcpServer,
  agentFor: ConnectionFactory,
  user: HubUser,
  maxRequestBodyBytes: number,
): (req: IncomingMessage, res: ServerResponse) => void {
  const agent = agentFor({ user });
  const server = withMethods(acp, {
    handleRequest: (request) => acp.handleRequest(request, { agent }),
  });
  return createNodeHttpHandler(server, { maxRequestBodyBytes });
}

// Upgrades one WebSocket request to an ACP connection that is `user`'s, its frames written on
// the socket through a wire of its own.
export function upgradeWebSocket(
  acp: AcpServer,
  wss: NodeWebSocketUpgradeServer,
  agentFor: ConnectionFactory,
  user: HubUser,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wire = new SocketWire();
  const agent = agentFor({ user, wire });
  const server = withMethods(acp, {
    prepareWebSocketUpgrade: (): PreparedWebSocketUpgrade => {
      const upgrade = acp.prepareWebSocketUpgrade({ agent });
      return {
        connectionId: upgrade.connectionId,
        accept: (socket) => upgrade.accept(wire.attach(socket as WebSocket)),
        reject: () => upgrade.reject(),
      };
    },
  });
  const upgrade = createNodeWebSocketUpgradeHandler(server, wss);
  return (req, socket, head) => {
    wire.useSocket(socket);
    upgrade(req, socket, head);
  };
}

// The server with some of its methods replaced (the rest are its own, bound to it).
function withMethods(
  acp: AcpServer,
  methods: Partial<
    Pick<AcpServer, "handleRequest" | "prepareWebSocketUpgrade">
  >,
): AcpServer {
  const replaced = methods as Record<PropertyKey, unknown>;
  return new Proxy(acp, {
    get: (target, key) => {
      if (replaced[key] !== undefined) return replaced[key];
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
