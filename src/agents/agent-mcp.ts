// An agent's MCP servers from config.json, given on every session/new, load and resume of
// that agent, merged with the editor's (the editor's entry wins on a name collision).
import type { McpServer } from "@agentclientprotocol/sdk";
import type { Config } from "../config/schema.js";
import type { AgentPort, SessionOpenParams } from "../engine/ports.js";
import type { Logger } from "../shared/logger.js";
import {
  mergeServers,
  serversFor,
  toAcpServers,
} from "../shared/mcp-servers.js";

// The servers config.json gives this agent, in the wire's shape.
export function agentServers(config: Config, agent: string): McpServer[] {
  return toAcpServers(config.agents?.[agent]?.mcpServers ?? []);
}

// The agent with its configured servers merged into every session it opens (an explicit
// wrapper: every other call passes through unchanged).
export function withAgentServers(
  port: AgentPort,
  configured: McpServer[],
  logger: Logger,
): AgentPort {
  if (!configured.length) return port;
  const merged = (params: SessionOpenParams): SessionOpenParams => {
    const caps =
      port.initializeResponse?.agentCapabilities?.mcpCapabilities ?? undefined;
    const all = mergeServers(configured, params.mcpServers ?? []);
    const { servers, warnings } = serversFor(all, caps);
    for (const warning of warnings) logger.warn(warning);
    return { ...params, mcpServers: servers };
  };
  const wrapped: AgentPort = {
    get alive() {
      return port.alive;
    },
    get inProcess() {
      return port.inProcess;
    },
    get initializeResponse() {
      return port.initializeResponse;
    },
    supports: (c) => port.supports(c),
    newSession: (p, signal) => port.newSession(merged(p), signal),
    loadSession: (id, p, signal) => port.loadSession(id, merged(p), signal),
    resumeSession: (id, p, signal) => port.resumeSession(id, merged(p), signal),
    forkSession: (id, p, signal) => port.forkSession(id, p, signal),
    closeSession: (id, signal) => port.closeSession(id, signal),
    deleteSession: (id, signal) => port.deleteSession(id, signal),
    releaseSession: (id) => port.releaseSession?.(id),
    authenticate: (id, signal) => port.authenticate(id, signal),
    request: (method, params, signal) => port.request(method, params, signal),
    notify: (method, params) => port.notify(method, params),
    close: () => port.close(),
  };
  return wrapped;
}
