// Which agents a hub user may start, and who may hand an agent commands of their own (issue
// 34): `acphub serve` offers only the agents its config names; config `users.agents` maps a
// role or a user's name to the agents they may start (admins: every offered agent, members:
// the default one, viewers: none); client-supplied stdio MCP servers are commands run on the
// hub's machine, so only the roles or users in `users.stdioMcpServers` (default admin) may
// give them. A hub built without rules (tests, library users) allows everything.
import type { HubUser } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

type Params = Record<string, unknown>;

export interface AgentRulesOptions {
  /** The agents this hub offers (named by its config, or the mock on a hub with no config). */
  offered: readonly string[];
  /** The agent of a session/new that names none; always one of `offered`. */
  defaultAgent: string;
  /** True when the config names no agent: the default is offered to admins only. */
  unnamed?: boolean;
  /** config `users.agents`: role or user name → agents. */
  byName?: Readonly<Record<string, readonly string[]>>;
  /** config `users.stdioMcpServers`: roles or user names (default ["admin"]). */
  stdioMcpServers?: readonly string[];
}

export class AgentRules {
  constructor(private readonly o: AgentRulesOptions) {
    for (const [who, names] of Object.entries(o.byName ?? {}))
      for (const name of names)
        if (!o.offered.includes(name))
          throw new HubError(
            "CONFIG_INVALID",
            `users.agents.${who} names agent "${name}", which this hub does not offer; it offers: ${o.offered.join(", ")} (config agents, defaultAgent and --agent)`,
          );
  }

  get offered(): readonly string[] {
    return this.o.offered;
  }

  get defaultAgent(): string {
    return this.o.defaultAgent;
  }

  // The agents a user may start (no user: the hub's own token, an admin).
  startable(user: HubUser | undefined): string[] {
    const role = user?.role ?? "admin";
    const named = (user && this.o.byName?.[user.name]) ?? this.o.byName?.[role];
    if (named) return this.o.offered.filter((a) => named.includes(a));
    if (role === "admin") return [...this.o.offered];
    if (role === "member" && !this.o.unnamed) return [this.o.defaultAgent];
    return [];
  }

  // Refuses an agent the user may not start, naming what they may start.
  mayStart(user: HubUser | undefined, agent: string): void {
    const may = this.startable(user);
    if (may.includes(agent)) return;
    const offered = this.o.offered.includes(agent);
    throw new HubError(
      "PERMISSION_DENIED",
      `${offered ? "you may not start" : "this hub does not offer"} agent ${JSON.stringify(agent)}; ${startableText(may)}`,
      { details: { agent, startable: may } },
    );
  }

  // Refuses stdio MCP servers (commands on the hub's machine) from a user the config does not
  // name in `users.stdioMcpServers`; http and sse servers are always allowed.
  mayGiveServers(user: HubUser | undefined, params: Params): void {
    const servers = params["mcpServers"];
    if (!Array.isArray(servers) || !servers.some(isStdioServer)) return;
    const allowed = this.o.stdioMcpServers ?? ["admin"];
    const role = user?.role ?? "admin";
    if (allowed.includes(role) || (user && allowed.includes(user.name))) return;
    const names = servers.filter(isStdioServer).map(serverName);
    throw new HubError(
      "PERMISSION_DENIED",
      `stdio MCP servers run commands on the hub's machine; a ${role} may not give them (${names.join(", ")}): use http or sse MCP servers, or ask an admin (config users.stdioMcpServers)`,
      { details: { servers: names } },
    );
  }
}

// "you may start: a, b" or "you may start no agent on this hub".
function startableText(may: readonly string[]): string {
  return may.length
    ? `you may start: ${may.join(", ")}`
    : "you may start no agent on this hub (config users.agents)";
}

// An MCP server entry that is not an http or sse one: the agent runs it as a command.
function isStdioServer(server: unknown): boolean {
  if (server === null || typeof server !== "object") return true;
  const type = (server as Params)["type"];
  return type !== "http" && type !== "sse";
}

function serverName(server: unknown): string {
  const name = (server as Params | null)?.["name"];
  return typeof name === "string" ? JSON.stringify(name) : "(unnamed)";
}
