// The parts a gateway is composed of, each with one job; the gateway's functions take the few
// they need (a Pick of this) instead of sharing mutable state through a base class.
import type { Logger } from "../shared/logger.js";
import type { AgentSlot } from "./agent-slot.js";
import type { EditorChannel } from "./editor-channel.js";
import type { GatewayLimits } from "./limits.js";
import type { HubCommandsPort, LedgerPort } from "./ports.js";
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
  /** Aborted when the gateway closes: pending compactions run at once. */
  closing: AbortSignal;
  /** Commands acphub runs itself in sessions (workflows), when wired. */
  commands?: HubCommandsPort;
  /** The agent is an acphub hub (`--hub`): see GatewayOptions.agentIsHub. */
  agentIsHub?: boolean | "replay";
}
