// Brings a hub session to life on the current agent process: the live one when it is still
// attached, else restored (resume, load or primed) and attached, with the ledger and the editor
// told how.
import type { GatewayParts } from "./parts.js";
import type { AgentPort, AgentSessionPort, SessionRecord } from "./ports.js";
import { relayEvent } from "./relay.js";
import { restoreNotice, restoreSession } from "./restore.js";
import type { LiveSession } from "./session-table.js";

type AttachParts = Pick<
  GatewayParts,
  "ledger" | "editor" | "logger" | "sessions"
>;

// Attaches an agent session to a hub session; its out-of-turn events are relayed from now on.
export function attachSession(
  parts: AttachParts,
  hubId: string,
  agent: AgentPort,
  session: AgentSessionPort,
  needsPriming: boolean,
): LiveSession {
  const unsubscribe = session.onEvent((event) => {
    void relayEvent(parts, hubId, event).catch((error: unknown) =>
      parts.logger.warn({ err: error }, "relay failed"),
    );
  });
  const entry: LiveSession = { agent, session, needsPriming, unsubscribe };
  parts.sessions.set(hubId, entry);
  return entry;
}

// The live agent session behind a hub session, restoring it onto the agent when needed.
export async function liveSession(
  parts: GatewayParts,
  record: SessionRecord,
): Promise<LiveSession> {
  const existing = parts.sessions.get(record.id);
  if (existing?.agent.alive) return existing;
  const agent = await parts.agents.get();
  const { session, mode } = await restoreSession(agent, record, parts.logger);
  if (session.id !== record.agentSessionId)
    parts.ledger.updateSession(record.id, { agentSessionId: session.id });
  parts.ledger.append(record.id, "restore", {
    mode,
    agentSessionId: session.id,
  });
  const entry = attachSession(
    parts,
    record.id,
    agent,
    session,
    mode === "primed",
  );
  const notice = restoreNotice(mode, parts.agentName);
  if (notice) await parts.editor.tell(record.id, notice);
  return entry;
}
