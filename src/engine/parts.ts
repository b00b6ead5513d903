// The parts a gateway is composed of, each with one job; the gateway's functions take the few
// they need (a Pick of this) instead of sharing mutable state through a base class.
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import type { BudgetPort } from "./budget-port.js";
import type { CloseDelays } from "./close-delays.js";
import type { EditorChannel } from "./editor-channel.js";
import type { EngineEventHub } from "./events.js";
import type { GatewayLimits } from "./limits.js";
import type { AgentPort, SessionCommandsPort, LedgerPort } from "./ports.js";
import type { SessionTable } from "./session-table.js";
import type { SettingsStore } from "./session-settings.js";

export interface GatewayParts {
  /** The configured agent's name, as recorded in the ledger and shown to people. */
  agentName: string;
  ledger: LedgerPort;
  logger: Logger;
  limits: GatewayLimits;
  agents: AgentSlot;
  sessions: SessionTable;
  editor: EditorChannel;
  /** Each session's modes, models and config options, kept in the ledger. */
  settings: SettingsStore;
  /** How long after a turn's answer its chunks are compacted (see turns.ts). */
  compactAfterMs: number;
  /** Waits the gateway's close ends: pending compactions run at once. */
  closing: CloseDelays;
  /** Turn starts and ends, session changes, told to the engine's listeners. */
  events: EngineEventHub;
  /** Commands acphub runs itself in sessions (workflows), when wired. */
  commands?: SessionCommandsPort;
  /** Masks known secrets in an update's JSON text (values only; same text when none). */
  mask?: (jsonText: string) => string;
  /** The agent is an acphub hub (`--hub`): see GatewayOptions.agentIsHub. */
  agentIsHub?: boolean | "replay";
  /** The budgets a prompt must fit (limits.budget), when configured. */
  budget?: BudgetPort;
}

// The one agent process behind a gateway: spawned on first use, and again on next use after it
// dies; concurrent callers share one spawn. Once closed it spawns nothing more: a request that
// was waiting for the spawn the close ended (an initialize under way) is refused, not given a
// new process nobody would close.
export class AgentSlot {
  private pending: Promise<AgentPort> | undefined;
  private closed = false;

  constructor(private readonly connect: () => Promise<AgentPort>) {}

  // The live agent, spawning one when there is none or the last one died.
  get(): Promise<AgentPort> {
    if (this.closed)
      return Promise.reject(
        new HubError("AGENT_EXITED", "the agent's process was closed"),
      );
    if (!this.pending) {
      const promise = this.connect();
      this.pending = promise;
      promise.catch(() => {
        if (this.pending === promise) this.pending = undefined;
      });
    }
    return this.pending.then((agent) => {
      if (agent.alive) return agent;
      this.pending = undefined;
      return this.get();
    });
  }

  // Closes the agent if one was spawned (or is being spawned); never spawns one.
  async close(): Promise<void> {
    this.closed = true;
    const agent = await this.pending?.catch(() => undefined);
    await agent?.close();
  }
}
