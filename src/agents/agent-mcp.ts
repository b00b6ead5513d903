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

// The agent with its configured servers merged into every session it opens.
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
  return new Proxy(port, {
    get(target, key, receiver) {
      if (key === "newSession")
        return (p: SessionOpenParams) => target.newSession(merged(p));
      if (key === "loadSession" || key === "resumeSession")
        return (id: string, p: SessionOpenParams) => target[key](id, merged(p));
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === "function"
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
