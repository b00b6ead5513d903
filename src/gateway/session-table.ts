// The gateway's per-session state: for each of acphub's session ids, the live agent session
// behind it and its running turn; and the mapping of session ids between editor and agent.
import type { Params } from "../protocol/raw.js";
import type { AgentPort, AgentSessionPort, TurnPort } from "./ports.js";
import type { SessionRelay } from "./session-relay.js";

/** One hub session while an agent session is attached to it. */
export interface LiveSession {
  agent: AgentPort;
  session: AgentSessionPort;
  /** The agent session is new and must be given the transcript with the next prompt. */
  needsPriming: boolean;
  turn?: TurnPort;
  turnDone?: Promise<unknown>;
  /** Stops relaying the agent session's out-of-turn events. */
  unsubscribe: () => void;
  /** The session's one ordered path to the ledger and the editor. */
  relay: SessionRelay;
  /** The compaction of the last turn, while it runs. */
  compacting?: Promise<void>;
}

export class SessionTable {
  private readonly live = new Map<string, LiveSession>();
  private readonly restoring = new Map<string, Promise<LiveSession>>();

  get(hubId: string): LiveSession | undefined {
    return this.live.get(hubId);
  }

  // Replaces whatever was attached to the hub session before (its relay is stopped).
  set(hubId: string, entry: LiveSession): void {
    this.live.get(hubId)?.unsubscribe();
    this.live.set(hubId, entry);
  }

  /** One restoration per hub session at a time: later callers wait for the one running. */
  restore(
    hubId: string,
    start: () => Promise<LiveSession>,
  ): Promise<LiveSession> {
    const running = this.restoring.get(hubId);
    if (running) return running;
    const restoring = start().finally(() => this.restoring.delete(hubId));
    this.restoring.set(hubId, restoring);
    return restoring;
  }

  // Detaches a hub session: its turn is cancelled and its relay stopped.
  remove(hubId: string): LiveSession | undefined {
    const entry = this.live.get(hubId);
    entry?.turn?.cancel();
    entry?.unsubscribe();
    this.live.delete(hubId);
    return entry;
  }

  values(): LiveSession[] {
    return [...this.live.values()];
  }

  /** Maps an agent's session id back to acphub's, for requests the agent sends the editor. */
  hubIdOf(agentSessionId: string): string | undefined {
    for (const [hubId, entry] of this.live)
      if (entry.session.id === agentSessionId) return hubId;
    return undefined;
  }

  // An editor's params with acphub's session id replaced by the agent's, when it is live.
  toAgentIds(params: unknown): unknown {
    const p = params as Params | null;
    const entry =
      typeof p?.["sessionId"] === "string"
        ? this.live.get(p["sessionId"])
        : undefined;
    return entry ? { ...p, sessionId: entry.session.id } : params;
  }

  // An agent's params with its session id replaced by acphub's, when one maps to it.
  toHubIds(params: unknown): unknown {
    const p = params as Params | null;
    const hubId =
      typeof p?.["sessionId"] === "string"
        ? this.hubIdOf(p["sessionId"])
        : undefined;
    return hubId ? { ...p, sessionId: hubId } : params;
  }
}
