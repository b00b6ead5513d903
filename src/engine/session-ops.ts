// Session methods answered from the ledger whatever the agent supports: open (recorded before
// the editor learns the id), list, replay, and end (close or delete) with the agent told when it
// can be.
import { randomUUID } from "node:crypto";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import { attachSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import type { LiveSession } from "./session-table.js";
import type { SessionRecord } from "./ports.js";
import type { ReplayPart } from "./ledger-port.js";
import { frameHead } from "./wire-updates.js";

// Opens an agent session and records it under a new hub id (the hub's own, when the agent is one).
export async function openSession(
  parts: GatewayParts,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const agent = await parts.agents.get();
  const { cwd, mcpServers, additionalDirectories, _meta } = params as {
    cwd: string;
    mcpServers?: McpServer[];
    additionalDirectories?: string[];
    _meta?: Params;
  };
  const session = await agent.newSession(
    { cwd, mcpServers: mcpServers ?? [], additionalDirectories, meta: _meta },
    signal,
  );
  // A hub's sessions keep the hub's id: the one its page and every client show.
  const id = parts.agentIsHub ? session.id : `hub-${randomUUID()}`;
  const now = Date.now();
  await parts.ledger.createSession({
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
  await parts.settings.merge(id, session.state);
  attachSession(parts, id, cwd, agent, session, false);
  return { ...session.state, sessionId: id };
}

/** What a hub's session/list adds to the engine's: only a user's sessions, and more of each. */
export interface HubListing {
  /** Only the sessions shared with this hub user (ListFilter.sharedWith). */
  sharedWith?: string;
  /** Each session's `_meta.acphub` (its agent, its state). */
  acphub?: (record: SessionRecord) => Params;
}

// One page of the ledger's sessions, as session/list answers it: one query.
export async function listPage(
  parts: Pick<GatewayParts, "ledger">,
  params: Params,
  hub: HubListing = {},
): Promise<Params> {
  const page = await parts.ledger.listSessions({
    cwd: params["cwd"] as string | undefined,
    cursor: params["cursor"] as string | undefined,
    ...(hub.sharedWith === undefined ? {} : { sharedWith: hub.sharedWith }),
  });
  return {
    sessions: page.sessions.map((s) => ({
      sessionId: s.id,
      cwd: s.cwd,
      title: s.title,
      updatedAt: new Date(s.updatedAt).toISOString(),
      ...(hub.acphub ? { _meta: { acphub: hub.acphub(s) } } : {}),
    })),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

// session/load's reads: the session's record (`record`: SESSION_NOT_FOUND when there is none)
// and, beside it, its history (two queries at once on PostgreSQL), sent once the record is found;
// the session is marked active meanwhile (markActive).
export async function loadAndReplay(
  parts: Pick<GatewayParts, "ledger" | "editor">,
  id: unknown,
  record: (id: unknown) => Promise<SessionRecord>,
): Promise<SessionRecord> {
  const history = typeof id === "string" ? readHistory(parts, id) : undefined;
  history?.catch(() => undefined);
  const found = await record(id);
  await Promise.all([
    markActive(parts, found),
    replayHistory(parts, found, history ?? readHistory(parts, found.id)),
  ]);
  return found;
}

/** Marks a session active unless its record, just read, says it is: loading a session left open
 *  writes nothing (on PostgreSQL, no lock on its row beside the batches of a running turn). */
export function markActive(
  parts: Pick<GatewayParts, "ledger">,
  record: SessionRecord,
): Promise<void> {
  return record.state === "active"
    ? Promise.resolve()
    : parts.ledger.updateSession(record.id, { state: "active" });
}

// A session's history as a replay sends it: one read, the stored text as stored; to an editor
// that takes frames, the frames of plain updates made by the ledger itself (readReplay) where it
// can.
function readHistory(
  parts: Pick<GatewayParts, "ledger" | "editor">,
  sessionId: string,
): Promise<readonly ReplayPart[]> {
  const { ledger, editor } = parts;
  return editor.takesFrames && ledger.readReplay
    ? ledger.readReplay(sessionId, frameHead(sessionId))
    : ledger.read(sessionId);
}

// Sends the editor every update of the session's `history` (readHistory), in order, in large
// writes.
async function replayHistory(
  parts: Pick<GatewayParts, "editor">,
  record: SessionRecord,
  history: Promise<readonly ReplayPart[]>,
): Promise<void> {
  if (record.incomplete)
    await parts.editor.tell(
      record.id,
      "older history of this session was trimmed (ledger caps); the replay starts later",
    );
  await parts.editor.replay(record.id, await history);
}

// Ends a hub session: detached here, and closed or deleted on the agent when it can do that.
export async function endSession(
  parts: Pick<GatewayParts, "ledger" | "logger" | "sessions" | "settings">,
  record: SessionRecord,
  how: "close" | "delete",
  signal?: AbortSignal,
): Promise<void> {
  const live = parts.sessions.remove(record.id);
  const agent = live?.agent;
  if (how === "close") {
    if (live) await detachAgentSession(live, signal);
    await parts.ledger.updateSession(record.id, { state: "closed" });
    parts.settings.forget(record.id);
    return;
  }
  if (agent?.alive && agent.supports("delete") && record.agentSessionId) {
    await agent
      .deleteSession(record.agentSessionId, signal)
      .catch((error: unknown) =>
        parts.logger.warn({ err: error }, "agent could not delete the session"),
      );
  }
  await parts.ledger.deleteSession(record.id);
  parts.settings.forget(record.id);
}

// Ends a live session on its agent: closed when the agent can, else forgotten here (host
// state, terminals) so that nothing of it is kept until the agent dies.
export async function detachAgentSession(
  live: LiveSession,
  signal?: AbortSignal,
): Promise<void> {
  if (!live.agent.alive) return;
  if (live.agent.supports("close"))
    await live.agent.closeSession(live.session.id, signal);
  else live.agent.releaseSession?.(live.session.id);
}

/** The ledger record of a session, or SESSION_NOT_FOUND. */
export async function requireRecord(
  parts: Pick<GatewayParts, "ledger">,
  id: unknown,
): Promise<SessionRecord> {
  const record =
    typeof id === "string" ? await parts.ledger.getSession(id) : undefined;
  if (!record)
    throw new HubError("SESSION_NOT_FOUND", `no session ${JSON.stringify(id)}`);
  return record;
}
