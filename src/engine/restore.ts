// Brings a ledger session back onto a live agent process: resume when the agent can (no
// replay), else load with the agent's replay swallowed, else a new agent session primed with
// the transcript on the next prompt. Never silently an empty session.
import type { McpServer } from "@agentclientprotocol/sdk";
import type { RunEvent } from "../contracts/events.js";
import { errorMessage, HubError, isHubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import type {
  AgentPort,
  AgentSessionPort,
  SessionOpenParams,
  SessionRecord,
} from "./ports.js";

export type RestoreMode = "live" | "resumed" | "loaded" | "primed" | "new";

export interface Restored {
  session: AgentSessionPort;
  mode: RestoreMode;
  /** What the agent replayed while loading, when it is to be shown (a hub's history). */
  replay?: RunEvent[];
}

function openParams(record: SessionRecord): SessionOpenParams {
  const r = record.request as {
    mcpServers?: McpServer[];
    additionalDirectories?: string[];
    _meta?: Record<string, unknown>;
  };
  return {
    cwd: record.cwd,
    mcpServers: r.mcpServers ?? [],
    additionalDirectories: r.additionalDirectories,
    meta: r._meta,
  };
}

export async function restoreSession(
  agent: AgentPort,
  record: SessionRecord,
  logger: Logger,
  signal?: AbortSignal,
): Promise<Restored> {
  const params = openParams(record);
  // An agent inside acphub keeps nothing to resume: its session is there whenever asked.
  if (agent.inProcess)
    return { session: await agent.newSession(params, signal), mode: "live" };
  const agentId = record.agentSessionId;
  if (agentId && agent.supports("resume")) {
    try {
      return {
        session: await agent.resumeSession(agentId, params, signal),
        mode: "resumed",
      };
    } catch (error) {
      if (signal?.aborted) throw error;
      logger.warn(
        { sessionId: record.id, err: errorMessage(error) },
        "agent could not resume the session",
      );
    }
  }
  if (agentId && agent.supports("loadSession")) {
    try {
      const { session } = await agent.loadSession(agentId, params, signal);
      return { session, mode: "loaded" };
    } catch (error) {
      if (signal?.aborted) throw error;
      logger.warn(
        { sessionId: record.id, err: errorMessage(error) },
        "agent could not load the session",
      );
    }
  }
  const session = await agent.newSession(params, signal);
  return { session, mode: record.eventCount > 0 ? "primed" : "new" };
}

// A session of a hub (the agent is `acphub serve`): the hub keeps it, so it is resumed there or it
// is an error (SESSION_NOT_FOUND when the hub does not know it) — never primed into a new one.
export async function reopenOnHub(
  agent: AgentPort,
  record: SessionRecord,
  withHistory: boolean,
  signal?: AbortSignal,
): Promise<Restored> {
  const id = record.agentSessionId ?? record.id;
  try {
    if (withHistory && agent.supports("loadSession")) {
      const loaded = await agent.loadSession(id, openParams(record), signal);
      return { session: loaded.session, mode: "live", replay: loaded.replay };
    }
    return {
      session: await agent.resumeSession(id, openParams(record), signal),
      mode: "live",
    };
  } catch (error) {
    if (!isHubError(error, "SESSION_NOT_FOUND")) throw error;
    throw new HubError(
      "SESSION_NOT_FOUND",
      `the hub has no session ${id} (see the hub's session list)`,
      { cause: error },
    );
  }
}

/** What the editor is told about a restoration. */
export function restoreNotice(
  mode: RestoreMode,
  agent: string,
): string | undefined {
  switch (mode) {
    case "resumed":
      return `acphub resumed this session on a new ${agent} process.`;
    case "loaded":
      return `acphub reloaded this session into a new ${agent} process.`;
    case "primed":
      return `${agent} could not resume or load this session; acphub started a new one and gives it the conversation so far along with the next prompt.`;
    default:
      return undefined;
  }
}
