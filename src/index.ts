// acphub's library API: explicit named exports only.
export { connectAgent, AgentConnection } from "./agents/connection.js";
export { connectHub, hubLaunch } from "./shim/connect-hub.js";
export type { ConnectHubOptions } from "./shim/connect-hub.js";
export type {
  ConnectOptions,
  SessionParams,
  LoadedSession,
} from "./agents/connection.js";
export { AgentSession } from "./agents/session.js";
export type { PromptOptions, SessionState } from "./agents/session.js";
export { textDelta } from "./agents/prompt-content.js";
export type { PromptInput } from "./agents/prompt-content.js";
export { PromptRun } from "./agents/prompt-run.js";
export type {
  RunEvent,
  SessionUpdateEvent,
  PermissionEvent,
  ClientRequestEvent,
  ExtensionEvent,
  PromptResult,
  RawSessionUpdate,
  AuditEvent,
} from "./contracts/events.js";
export type {
  ClientHost,
  HostContext,
  PermissionAnswer,
  BridgeMethod,
} from "./contracts/client-host.js";
export {
  AgentPool,
  DEFAULT_IDLE_TTL_MS,
  DEFAULT_MAX_PROCESSES,
} from "./agents/pool.js";
export type { PoolKey, PoolLease, PoolOptions } from "./agents/pool.js";
export {
  resolveAgent,
  knownAgentNames,
  defaultAgentName,
  MOCK_AGENT_NAME,
} from "./agents/registry.js";
export type { AgentLaunch, ResolveOptions } from "./agents/registry.js";
export { BUILTIN_AGENTS } from "./agents/builtin-agents.js";
export { DEFAULT_LIMITS } from "./agents/limits.js";
export type { ConnectionLimits } from "./agents/limits.js";
export { reapOrphans } from "./agents/orphans.js";
export { loadConfig, parseConfig } from "./config/load.js";
export { resolvePaths } from "./config/paths.js";
export type { Config, AgentEntry, PermissionMode } from "./config/schema.js";
export { createHost } from "./host/create-host.js";
export type { HostOptions, HostServices } from "./host/create-host.js";
export type { SandboxMode, SandboxSettings } from "./host/sandbox/settings.js";
export { DEFAULT_DENY_READ } from "./host/sandbox/settings.js";
export {
  PermissionEngine,
  STANDARD_OPTIONS,
} from "./host/permission-engine.js";
export type { Approver, PermissionRule } from "./host/permission-engine.js";
export { DecisionMemory } from "./host/decision-memory.js";
export type { RememberedDecision } from "./host/decision-memory.js";
export {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "./host/command-policy.js";
export { filterEnv } from "./shared/env-filter.js";
export { HubError, isHubError, HUB_ERROR_CODES } from "./shared/errors.js";
export type { HubErrorCode } from "./shared/errors.js";
export { createLogger } from "./shared/logger.js";
