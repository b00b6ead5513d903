// Brings a hub session to life on the current agent process: the live one when it is still
// attached, else restored (resume, load or primed) and attached, with the ledger and the editor
// told how.
import type { GatewayParts } from "./parts.js";
import type { AgentPort, AgentSessionPort, SessionRecord } from "./ports.js";
import { tellStored } from "./notices.js";
import { reapplySettings } from "./reapply-settings.js";
import { SessionRelay } from "./session-relay.js";
import { reopenOnHub, restoreNotice, restoreSession } from "./restore.js";
import type { LiveSession } from "./session-table.js";

type AttachParts = Pick<
  GatewayParts,
  "ledger" | "editor" | "logger" | "sessions" | "settings" | "commands"
>;

// Attaches an agent session to a hub session; its out-of-turn events are relayed from now on.
export function attachSession(
  parts: AttachParts,
  hubId: string,
  cwd: string,
  agent: AgentPort,
  session: AgentSessionPort,
  needsPriming: boolean,
): LiveSession {
  const relay =
    parts.sessions.get(hubId)?.relay ?? new SessionRelay(parts, hubId, cwd);
  const unsubscribe = session.onEvent((event) => relay.pushOutside(event));
  const entry: LiveSession = {
    agent,
    session,
    needsPriming,
    unsubscribe,
    relay,
  };
  parts.sessions.set(hubId, entry);
  return entry;
}

// The live agent session behind a hub session, restoring it onto the agent when needed (one
// restoration at a time per session: session/load starts one, the next prompt waits for it). The
// signal stops this caller's wait (a prompt passes none: its cancel waits for the restore, bounded).
export async function liveSession(
  parts: GatewayParts,
  record: SessionRecord,
  signal?: AbortSignal,
): Promise<LiveSession> {
  const existing = parts.sessions.get(record.id);
  if (existing?.agent.alive) return existing;
  return parts.sessions.restore(
    record.id,
    () => restoreLive(parts, record),
    signal,
  );
}

// Restores the session onto the current agent process and tells the ledger and the editor how.
async function restoreLive(
  parts: GatewayParts,
  record: SessionRecord,
): Promise<LiveSession> {
  const agent = await parts.agents.get();
  const { logger } = parts;
  const { session, mode, replay } = parts.agentIsHub
    ? await reopenOnHub(agent, record, parts.agentIsHub === "replay")
    : await restoreSession(agent, record, logger);
  if (session.id !== record.agentSessionId)
    await parts.ledger.updateSession(record.id, { agentSessionId: session.id });
  await parts.ledger.append(record.id, "restore", {
    mode,
    agentSessionId: session.id,
  });
  await reapplySettings(parts, record.id, agent, session);
  const entry = attachSession(
    parts,
    record.id,
    record.cwd,
    agent,
    session,
    mode === "primed",
  );
  // The hub's history, loaded from it (chat --hub --session), reaches the editor as updates.
  for (const event of replay ?? []) entry.relay.pushOutside(event);
  const notice = restoreNotice(mode, parts.agentName);
  if (notice) await tellStored(parts, record.id, notice);
  return entry;
}
