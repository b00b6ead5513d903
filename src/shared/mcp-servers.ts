// MCP server entries as people write them in config.json and workflow files (env and headers
// as maps), their zod schema and the wire's shape; merged with the editor's (the editor's
// entry wins on a name collision) and filtered by what the agent can take.
import type { McpServer } from "@agentclientprotocol/sdk";
import { z } from "zod";

const stdioServer = z.strictObject({
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const remoteServer = z.strictObject({
  type: z.enum(["http", "sse"]),
  name: z.string().min(1),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
});
export const mcpServerSchema = z.union([stdioServer, remoteServer]);
export type McpServerEntry = z.infer<typeof mcpServerSchema>;

const pairs = (record: Record<string, string> | undefined) =>
  Object.entries(record ?? {}).map(([name, value]) => ({ name, value }));

// Entries from a file in the wire's shape.
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

/** What a secret value of an MCP server (an env value, a header value) is shown as. */
export const MASKED_VALUE = "***";

// A session's stored request as shown to people (`sessions show|list|export --json`): every MCP
// server's env and header values masked — they carry tokens (issue 34). The ledger keeps them,
// so a restored session's servers still start with them.
export function maskedServerSecrets(
  request: Record<string, unknown>,
): Record<string, unknown> {
  const servers = request["mcpServers"];
  if (!Array.isArray(servers)) return request;
  return { ...request, mcpServers: servers.map(maskedServer) };
}

function maskedServer(server: unknown): unknown {
  if (server === null || typeof server !== "object") return server;
  const s = { ...(server as Record<string, unknown>) };
  for (const key of ["env", "headers"])
    if (Array.isArray(s[key]))
      s[key] = (s[key] as unknown[]).map((pair) =>
        pair !== null && typeof pair === "object"
          ? { ...(pair as object), value: MASKED_VALUE }
          : pair,
      );
  return s;
}
