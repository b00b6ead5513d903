// What a SessionHub is built from (app/serve-hub.ts builds it whole); session-hub.ts re-exports
// it, so callers name the hub's options where they name the hub.
import type { Logger } from "../shared/logger.js";
import type { LedgerPort } from "../engine/ports.js";
import type { AuditPort, HubUser } from "../contracts/users.js";
import type { AccessStore } from "./access.js";
import type { SessionHubObserver } from "./hub-editor.js";
import type { SessionRunner } from "./runner.js";
import type { CreateGateway } from "./gateway-pool.js";
import type { ProcessPolicy } from "./process-run.js";
import type { AgentRules } from "./agent-rules.js";
import type { FolderCheck } from "./session-folder.js";

export interface SessionHubOptions {
  ledger: LedgerPort;
  defaultAgent: string;
  /** A gateway over one agent; the hub initializes it and attaches its fan-out editor. */
  createGateway: CreateGateway;
  /** Cancel a connection's running turns when it disconnects (default: let them finish). */
  cancelOnDisconnect?: boolean;
  /** A session with nobody attached and no turn for this long is released (default 30 min). */
  idleSessionMs?: number;
  /** How long a permission question waits for an editor to re-attach (default 10 s). */
  answerGraceMs?: number;
  observer?: SessionHubObserver;
  logger?: Logger;
  /** The users' grants (issue 22); none: every client sees and drives every session. */
  access?: AccessStore;
  /** The audit log's one writer (app/audit-log.ts); none: nothing is audited. */
  audit?: AuditPort;
  /** Decides which process runs a session's agent (a cluster's lease); none: this one always. */
  runner?: SessionRunner;
  /** Which agents each user may start, and who may give stdio MCP servers; none: anyone. */
  agentRules?: AgentRules;
  /** The name recorded as a prompt's author (issue 22); none: no author is recorded. */
  authorOf?: (user: HubUser | undefined) => string | undefined;
  /** Refuses session folders outside the user's roots (issue 34); none: any folder. */
  checkFolders?: FolderCheck;
  /** The most prompts queued per session (serve.maxQueuedPrompts; default 16). */
  maxQueuedPrompts?: number;
  /** Agent processes per user (issue 36); none: one process per agent for everyone. */
  processes?: ProcessPolicy;
  /** Told when an agent process's gateway is closed (its host goes). */
  processClosed?: (key: string) => void;
}
