// Session methods answered from the ledger whatever the agent supports: open (recorded before
// the editor learns the id), list, replay, and end (close or delete) with the agent told when it
// can be.
import { randomUUID } from "node:crypto";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import { replayItems } from "./history.js";
import { attachSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import type { AgentSessionPort, SessionRecord } from "./ports.js";

// Opens an agent session and records it under a new hub id.
export async function openSession(
  parts: GatewayParts,
  params: Params,
): Promise<Params> {
  const agent = await parts.agents.get();
  const { cwd, mcpServers, additionalDirectories, _meta } = params as {
    cwd: string;
    mcpServers?: McpServer[];
    additionalDirectories?: string[];
    _meta?: Params;
  };
  const session = await agent.newSession({
    cwd,
    mcpServers: mcpServers ?? [],
    additionalDirectories,
    meta: _meta,
  });
  const id = `hub-${randomUUID()}`;
  const now = Date.now();
  parts.ledger.createSession({
    id,
    agent: parts.agentName,
    cwd,
    title: null,
    createdAt: now,
    updatedAt: now,
    state: "active",
    agentSessionId: session.id,
    request: {
      mcpServers: mcpServers ?? [],
      ...(additionalDirectories ? { additionalDirectories } : {}),
      ...(_meta ? { _meta } : {}),
    },
  });
  attachSession(parts, id, agent, session, false);
  return { ...session.state, sessionId: id };
}

// One page of the ledger's sessions, as session/list answers it.
export function listPage(parts: Pick<GatewayParts, "ledger">, params: Params) {
  let page;
  try {
    page = parts.ledger.listSessions({
      cwd: params["cwd"] as string | undefined,
      cursor: params["cursor"] as string | undefined,
    });
  } catch (error) {
    throw new HubError("USAGE", (error as Error).message);
  }
  return {
    sessions: page.sessions.map((s) => ({
      sessionId: s.id,
      cwd: s.cwd,
      title: s.title,
      updatedAt: new Date(s.updatedAt).toISOString(),
    })),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

// Sends the editor every update of the session's history, in order (session/load).
export async function replayHistory(
  parts: Pick<GatewayParts, "ledger" | "editor">,
  record: SessionRecord,
): Promise<void> {
  if (record.incomplete)
    await parts.editor.tell(
      record.id,
      "older history of this session was trimmed (ledger caps); the replay starts later",
    );
  for (const item of replayItems(parts.ledger.events(record.id))) {
    await parts.editor.send("session/update", {
      sessionId: record.id,
      update: item.update,
      ...(item.meta ? { _meta: item.meta } : {}),
    });
  }
}

// Ends a hub session: detached here, and closed or deleted on the agent when it can do that.
export async function endSession(
  parts: Pick<GatewayParts, "ledger" | "logger" | "sessions">,
  record: SessionRecord,
  how: "close" | "delete",
): Promise<void> {
  const live = parts.sessions.remove(record.id);
  const agent = live?.agent;
  if (how === "close") {
    if (live && agent?.alive && agent.supports("close"))
      await agent.closeSession(live.session.id);
    parts.ledger.updateSession(record.id, { state: "closed" });
    return;
  }
  if (agent?.alive && agent.supports("delete") && record.agentSessionId) {
    await agent
      .deleteSession(record.agentSessionId)
      .catch((error: unknown) =>
        parts.logger.warn({ err: error }, "agent could not delete the session"),
      );
  }
  parts.ledger.deleteSession(record.id);
}

/** The session's modes and config options as the agent last described them. */
export function stateOf(session: AgentSessionPort): Params {
  const { modes, configOptions, models } = session.state;
  return {
    ...(modes ? { modes } : {}),
    ...(configOptions ? { configOptions } : {}),
    ...(models ? { models } : {}),
  };
}
