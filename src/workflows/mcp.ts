// MCP servers for step sessions: the workflow file's entries in ACP's shape, merged with the
// editor's (the editor's entry wins on a name collision), and filtered by what the agent
// can take (HTTP and SSE only for agents advertising them).
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerEntry } from "./schema.js";

const pairs = (record: Record<string, string> | undefined) =>
  Object.entries(record ?? {}).map(([name, value]) => ({ name, value }));

// A workflow file's entries in the wire's shape.
export function toAcpServers(entries: McpServerEntry[]): McpServer[] {
  return entries.map((e) =>
    "type" in e
      ? { type: e.type, name: e.name, url: e.url, headers: pairs(e.headers) }
      : {
          name: e.name,
          command: e.command,
          args: e.args ?? [],
          env: pairs(e.env),
        },
  );
}

// Later lists win over earlier ones by name; the order of first appearance is kept.
export function mergeServers(...lists: McpServer[][]): McpServer[] {
  const byName = new Map<string, McpServer>();
  for (const list of lists)
    for (const server of list) byName.set(server.name, server);
  return [...byName.values()];
}

export interface McpCapabilities {
  http?: boolean;
  sse?: boolean;
}

// The servers this agent can take, and a warning for each one left out.
export function serversFor(
  servers: McpServer[],
  caps: McpCapabilities | undefined,
): { servers: McpServer[]; warnings: string[] } {
  const warnings: string[] = [];
  const kept = servers.filter((s) => {
    const type = "type" in s ? s.type : "stdio";
    if (
      type === "stdio" ||
      (type === "http" && caps?.http) ||
      (type === "sse" && caps?.sse)
    )
      return true;
    warnings.push(
      `MCP server ${s.name} (${type}) left out: the agent does not advertise mcpCapabilities.${type}`,
    );
    return false;
  });
  return { servers: kept, warnings };
}
