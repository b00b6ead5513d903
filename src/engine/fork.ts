// session/fork for any agent: a new acphub session whose ledger starts with a copy of the
// parent's history up to the fork point. When the agent can fork, the agent's session is
// forked too; otherwise the fork is restored like any other session on first use (resume,
// load, or the transcript primed into the first prompt).
import type { Params } from "../protocol/raw.js";
import { randomUUID } from "node:crypto";
import type { McpServer } from "@agentclientprotocol/sdk";
import { errorMessage } from "../shared/errors.js";
import type { SessionRecord } from "./ports.js";
import { attachSession, liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import { reapplySettings } from "./reapply-settings.js";
import { requireRecord } from "./session-ops.js";

// What the fork is opened with: the editor's fields, else the parent's.
function forkRequest(parent: SessionRecord, params: Params) {
  const r = parent.request as {
    mcpServers?: McpServer[];
    additionalDirectories?: string[];
  };
  const mcpServers =
    (params["mcpServers"] as McpServer[] | undefined) ?? r.mcpServers ?? [];
  const additionalDirectories =
    (params["additionalDirectories"] as string[] | undefined) ??
    r.additionalDirectories;
  const meta = params["_meta"] as Params | undefined;
  return {
    mcpServers,
    ...(additionalDirectories ? { additionalDirectories } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

// Forks on the agent when it can; returns the agent's session id, or null to restore later.
async function forkOnAgent(
  parts: GatewayParts,
  parent: SessionRecord,
  child: SessionRecord,
): Promise<string | null> {
  const agent = await parts.agents.get();
  if (!agent.supports("fork")) return null;
  try {
    const live = await liveSession(parts, parent);
    // An agent session that has not had the transcript yet has nothing worth forking.
    if (live.needsPriming) return null;
    const request = child.request as { mcpServers?: McpServer[] } & Params;
    const session = await live.agent.forkSession(live.session.id, {
      cwd: child.cwd,
      mcpServers: request.mcpServers ?? [],
      additionalDirectories: request["additionalDirectories"] as
        string[] | undefined,
      meta: request["_meta"] as Params | undefined,
    });
    // The agent may fork with its default settings: it gets the parent's again.
    await reapplySettings(parts, child.id, live.agent, session);
    attachSession(parts, child.id, child.cwd, live.agent, session, false);
    return session.id;
  } catch (error) {
    parts.logger.warn(
      { sessionId: parent.id, err: errorMessage(error) },
      "agent could not fork the session; the fork is restored from the ledger",
    );
    return null;
  }
}

/** Serves session/fork; answers like session/new (the new id, modes, models, options). */
export async function forkSession(
  parts: GatewayParts,
  params: Params,
  onAgent = true,
): Promise<Params> {
  const parent = await requireRecord(parts, params["sessionId"]);
  const now = Date.now();
  const cwd = typeof params["cwd"] === "string" ? params["cwd"] : parent.cwd;
  const child = {
    id: `hub-${randomUUID()}`,
    agent: parts.agentName,
    cwd,
    title: parent.title === null ? null : `${parent.title} (fork)`,
    createdAt: now,
    updatedAt: now,
    state: "active" as const,
    agentSessionId: null,
    request: forkRequest(parent, params),
    settings: (await parts.settings.get(parent.id)) as Params,
    forkedFrom: parent.id,
  };
  // Every event the parent has stored when the copy starts (the ledger drains its batch first).
  await parts.ledger.copySession(parent.id, child);
  const record = await requireRecord(parts, child.id);
  const agentSessionId = onAgent
    ? await forkOnAgent(parts, parent, record)
    : null;
  if (agentSessionId) {
    await parts.ledger.updateSession(child.id, { agentSessionId });
    await parts.ledger.append(child.id, "restore", {
      mode: "forked",
      agentSessionId,
    });
  }
  return { sessionId: child.id, ...(await parts.settings.get(child.id)) };
}
