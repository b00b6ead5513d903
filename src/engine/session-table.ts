// The gateway's per-session state: for each of acphub's session ids, the live agent session
// behind it and its running turn; and the mapping of session ids between editor and agent.
import type { Params } from "../protocol/raw.js";
import type { AgentPort, AgentSessionPort, TurnPort } from "./ports.js";
import type { SessionRelay } from "./session-relay.js";
import { TurnGate } from "./turn-gate.js";

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
  /** The session's last cumulative cost the agent reported, once known here (usage). */
  lastCost?: number;
}

export class SessionTable {
  private readonly live = new Map<string, LiveSession>();
  private readonly restoring = new Map<string, Promise<LiveSession>>();

  /** `turns`: the one gate of the sessions' turns and cancels; a hub passes its own, shared by
   *  all its gateways. */
  constructor(readonly turns: TurnGate = new TurnGate()) {}

  get(hubId: string): LiveSession | undefined {
    return this.live.get(hubId);
  }

  /** The live session, only while its agent process is alive. */
  alive(hubId: string): LiveSession | undefined {
    const entry = this.live.get(hubId);
    return entry?.agent.alive ? entry : undefined;
  }

  // Replaces whatever was attached to the hub session before (its relay is stopped).
  set(hubId: string, entry: LiveSession): void {
    this.live.get(hubId)?.unsubscribe();
    this.live.set(hubId, entry);
  }

  /**
   * One restoration per hub session at a time: later callers wait for the one running. A
   * caller's signal stops its own wait, not the shared restoration (bounded by request timeouts).
   */
  restore(
    hubId: string,
    start: () => Promise<LiveSession>,
    signal?: AbortSignal,
  ): Promise<LiveSession> {
    let restoring = this.restoring.get(hubId);
    if (!restoring) {
      restoring = start().finally(() => this.restoring.delete(hubId));
      this.restoring.set(hubId, restoring);
    }
    return signal ? untilAborted(restoring, signal) : restoring;
  }

  // Detaches a hub session: its turn is cancelled and its relay stopped.
  remove(hubId: string): LiveSession | undefined {
    const entry = this.live.get(hubId);
    entry?.turn?.cancel();
    entry?.unsubscribe();
    this.live.delete(hubId);
    return entry;
  }

  // session/cancel: every prompt under way on the hub session ends cancelled, with its turn.
  cancel(hubId: string): void {
    this.turns.cancel(hubId);
    this.live.get(hubId)?.turn?.cancel();
  }

  /** The hub session ids with an agent session attached. */
  ids(): string[] {
    return [...this.live.keys()];
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

// A promise that rejects with the signal's reason once it aborts, else settles as `promise` does.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}
