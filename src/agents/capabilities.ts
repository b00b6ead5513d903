// What an agent advertised in `initialize`, and the session request body every open sends.
import type { AgentCapabilities, McpServer } from "@agentclientprotocol/sdk";
import type { AgentCapability } from "../engine/ports.js";
import { unsupported } from "./agent-errors.js";

export type Capability = AgentCapability;

export interface SessionParams {
  cwd: string;
  mcpServers?: McpServer[];
  additionalDirectories?: string[];
  meta?: Record<string, unknown>;
}

// Whether the agent advertised a session capability (`loadSession` or `sessionCapabilities.*`).
export function supportsCapability(
  caps: AgentCapabilities,
  capability: Capability,
): boolean {
  if (capability === "loadSession") return caps.loadSession === true;
  // The stable types do not name the unstable capabilities (fork, title): read them raw.
  const session = caps.sessionCapabilities as
    Record<string, unknown> | undefined;
  const value = session?.[capability];
  return value !== undefined && value !== null;
}

// Throws UNSUPPORTED naming the capability the agent did not advertise.
export function requireCapability(
  caps: AgentCapabilities,
  agentName: string,
  capability: Capability,
  method: string,
): void {
  if (supportsCapability(caps, capability)) return;
  const name =
    capability === "loadSession"
      ? "loadSession"
      : `sessionCapabilities.${capability}`;
  throw unsupported(agentName, method, name);
}

// The body of session/new, load and resume: absent optional fields are left out.
export function sessionRequest(params: SessionParams) {
  const { cwd, mcpServers = [], additionalDirectories, meta } = params;
  return {
    cwd,
    mcpServers,
    ...(additionalDirectories ? { additionalDirectories } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}
