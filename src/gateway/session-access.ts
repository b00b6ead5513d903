// What the protocol methods beyond the core (fork, status, title, set_*, forwarding) need of
// the gateway: the ledger, the settings cache, the agent, and live sessions by acphub's id.
import type { Logger } from "../shared/logger.js";
import type {
  AgentPort,
  AgentSessionPort,
  EditorPort,
  LedgerPort,
  SessionRecord,
} from "./ports.js";
import type { SettingsStore } from "./session-settings.js";

export interface LiveSession {
  agent: AgentPort;
  session: AgentSessionPort;
  /** The agent session was started fresh; the transcript goes with the next prompt. */
  needsPriming?: boolean;
}

export interface SessionAccess {
  agentName: string;
  ledger: LedgerPort;
  settings: SettingsStore;
  logger: Logger;
  editor: () => EditorPort | undefined;
  /** The editor's capabilities from `initialize`. */
  editorCapabilities: () => Record<string, unknown>;
  /** The agent process (spawned or respawned as needed). */
  agent(): Promise<AgentPort>;
  /** The ledger record of a session, or SESSION_NOT_FOUND. */
  record(id: unknown): SessionRecord;
  /** The live agent session behind a hub session, restoring it when needed. */
  live(record: SessionRecord): Promise<LiveSession>;
  /** The live agent session, only if there is one already. */
  current(hubId: string): LiveSession | undefined;
  /** Makes `session` the live agent session behind `hubId`. */
  attach(hubId: string, agent: AgentPort, session: AgentSessionPort): void;
}
