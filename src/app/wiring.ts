// Wires the concrete parts a CLI command needs: the host services (files, terminals,
// permissions), the ledger, and the gateway over an agent.
import { relayedClientCapabilities } from "../protocol/capabilities.js";
import type { RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import type { AgentProcess } from "../agents/agent-process.js";
import { connectAgent } from "../agents/connection.js";
import { forgetAgent, recordAgent } from "../agents/orphans.js";
import type { AgentLaunch } from "../agents/registry.js";
import type { Config, PermissionMode } from "../config/schema.js";
import type { EditorChannel } from "../engine/editor-channel.js";
import { Gateway } from "../engine/gateway.js";
import type { GatewayLimits } from "../engine/limits.js";
import type {
  AgentPort,
  SessionCommandsPort,
  LedgerPort,
} from "../engine/ports.js";
import { HubError } from "../shared/errors.js";
import { openLedgerAt, type OpenLedger } from "../ledger/open.js";
import { agentServers, withAgentServers } from "../agents/agent-mcp.js";
import { connectionLimits } from "../agents/limits.js";
import type { AppContext } from "../config/context.js";
import {
  type CommandPolicy,
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "../host/command-policy.js";
import {
  createHost,
  type EditorBridge,
  type HostServices,
} from "../host/create-host.js";
import { DecisionMemory } from "../host/decision-memory.js";
import { PermissionEngine, type Approver } from "../host/permission-engine.js";
import type { Logger } from "../shared/logger.js";
import { SecretMasker } from "../shared/secrets.js";
import { sandboxSettings } from "./sandbox.js";
import { openTracing, type Tracing } from "../telemetry/tracing.js";
import { budgetsOf, type Budgets } from "../telemetry/budgets.js";
import type { RunHostFactory } from "../workflows/runtime/commands.js";

export interface HostWiring {
  config: Config;
  stateDir: string;
  /** The config file (nothing sandboxed may read it). */
  configFile: string;
  mode: PermissionMode;
  approver?: Approver;
  logger: Logger;
  editor?: EditorBridge;
  /** A hub's paths nothing may reach besides state and config (token, TLS files, ledger). */
  protect?: string[];
  /** Whether a session with this cwd gets fs.roots (a hub: not members' sessions). */
  rootsWhen?: (cwd: string) => boolean;
  /** On a hub: who owns a session (by the agent's session id), for remembered decisions. */
  ownerOf?: (sessionId: string) => Promise<string | undefined>;
  /** The environment terminals start from (a hub member's agent's; default: this process's). */
  env?: Record<string, string>;
}

/** Whether the no-sandbox warning was logged (once per process, however many hosts). */
let sandboxWarned = false;

// Logs the warning that terminals run without the OS sandbox asked for, once per process.
function warnSandboxOnce(host: HostServices, logger: Logger): void {
  if (!host.sandboxWarning || sandboxWarned) return;
  sandboxWarned = true;
  logger.warn(host.sandboxWarning);
}

export function buildHost(w: HostWiring): HostServices {
  const host = makeHost(w);
  warnSandboxOnce(host, w.logger);
  return host;
}

// The host's parts from config: permission engine, limits, command policy, sandbox.
function makeHost(w: HostWiring): HostServices {
  const { config } = w;
  // A member's agent's own secrets are masked as well as this process's.
  const masker = SecretMasker.fromEnv({ ...process.env, ...w.env });
  const engine = new PermissionEngine({
    mask: (text) => masker.mask(text),
    mode: w.mode,
    rules: config.permissions?.rules,
    approver: w.approver,
    memory: DecisionMemory.inStateDir(w.stateDir),
    ...(w.ownerOf ? { ownerOf: w.ownerOf } : {}),
  });
  const t = config.terminals ?? {};
  return createHost({
    engine,
    roots: config.fs?.roots,
    ...(w.rootsWhen ? { rootsWhen: w.rootsWhen } : {}),
    fsLimits: {
      maxReadBytes: config.fs?.maxReadBytes,
      maxWriteBytes: config.fs?.maxWriteBytes,
    },
    terminalLimits: {
      outputByteLimit: t.outputByteLimit,
      timeoutMs: t.timeoutMs,
      maxPerSession: t.maxPerSession,
    },
    commands: commandPolicyFrom(config),
    ...(w.env ? { env: w.env } : {}),
    logger: w.logger,
    masker,
    editor: w.editor,
    recorder: {
      record: (pid, name, leftovers) =>
        recordAgent(w.stateDir, pid, name, leftovers),
      forget: (pid) => forgetAgent(w.stateDir, pid),
    },
    sandbox: sandboxSettings(config, w),
  });
}

// The host of a workflow run started inside a session (its step agents ask `approver`).
export function runHostFactory(ctx: AppContext): RunHostFactory {
  return (approver) =>
    buildHost({
      config: ctx.config,
      stateDir: ctx.paths.stateDir,
      configFile: ctx.paths.configFile,
      mode: ctx.config.permissions?.mode ?? "ask",
      logger: ctx.logger,
      approver,
    });
}

// The terminal command policy from config (agents' terminals and workflow shell steps).
export function commandPolicyFrom(config: Config): CommandPolicy {
  const t = config.terminals ?? {};
  return {
    allow: [...(t.allow ?? DEFAULT_ALLOWED_COMMANDS), ...(t.extraAllow ?? [])],
    deny: [...DEFAULT_DENY_RULES, ...(t.deny ?? [])],
    allowEnv: t.allowAgentEnv ?? [],
  };
}

/** Where the ledger is: ACPHUB_LEDGER_URL, else ledger.url, else the SQLite file in the state dir. */
export function ledgerUrl(ctx: AppContext): string {
  return (
    process.env["ACPHUB_LEDGER_URL"] ||
    ctx.config.ledger?.url ||
    join(ctx.paths.stateDir, "ledger.db")
  );
}

/**
 * The ledger: PostgreSQL when ACPHUB_LEDGER_URL or ledger.url names one, else SQLite in the state
 * folder; the caps from config. Never a fallback: a ledger that cannot be opened is an error.
 */
export function openLedger(
  ctx: AppContext,
  tracing?: Tracing,
): Promise<OpenLedger> {
  const { url: _url, retryMs, ...caps } = ctx.config.ledger ?? {};
  const where = ledgerUrl(ctx);
  const masker = SecretMasker.fromEnv(process.env);
  return openLedgerAt(where, {
    caps,
    ...(retryMs ? { retryMs } : {}),
    logger: ctx.logger,
    mask: (text) => masker.maskJson(text),
    ...(tracing ? { onBatch: (r) => tracing.ledgerBatch(r) } : {}),
  });
}

export interface GatewayWiring {
  ctx: AppContext;
  agentName: string;
  /** The agent process to spawn; unused when `agent` is given. */
  launch?: AgentLaunch;
  /** An agent of acphub's own instead of a process (a workflow served as the agent). */
  agent?: () => Promise<AgentPort>;
  ledger: LedgerPort;
  host: HostServices;
  /** The editor side, when the host was built over it first (acphub acp). */
  editor?: EditorChannel;
  /** Working directory of the agent process. */
  cwd?: string;
  /** An agent spawned early, used for the first connection. */
  prespawned?: AgentProcess;
  /** Overrides of the config's gateway limits. */
  limits?: Partial<GatewayLimits>;
  /** Called with each agent process the gateway starts (metrics). */
  onAgent?: (agent: { closed: Promise<void> }) => void;
  /** Commands acphub runs itself in sessions (workflows). */
  commands?: SessionCommandsPort;
  /** Aborts connecting (spawn and initialize). */
  signal?: AbortSignal;
  /** The agent is a running hub (`--hub`): see GatewayOptions.agentIsHub. */
  agentIsHub?: boolean | "replay";
  /** Traces the gateway's turns (when tracing is on). */
  tracing?: Tracing;
  /** Budgets shared by several gateways (serve); else the config's, over `ledger`. */
  budgets?: Budgets;
}

// The gateway over one agent (respawned after it dies), with the limits from config.
export function buildGateway(w: GatewayWiring): Gateway {
  const { config, paths, logger } = w.ctx;
  const limits = config.limits ?? {};
  // The secrets the agent was given (a hub user's) are masked as well as this process's.
  const masker = SecretMasker.fromEnv({ ...process.env, ...w.launch?.env });
  // The agent's own spans join the turn's trace (issue 40): its env points at acphub's receiver.
  const agentTelemetry =
    w.launch && !w.agentIsHub
      ? w.tracing?.agentTelemetry?.(w.agentName, w.launch.env, (t) =>
          masker.mask(t),
        )
      : undefined;
  const launch = w.launch;
  let early = w.prespawned;
  const takeEarly = () => {
    const p = early;
    early = undefined;
    return p && !p.hasExited ? p : undefined;
  };
  // A hub as the agent keeps its own budgets.
  const budgets = w.agentIsHub
    ? undefined
    : (w.budgets ?? budgetsOf(config, w.ledger));
  const gateway = new Gateway({
    agentName: w.agentName,
    ...(budgets ? { budget: budgets } : {}),
    ledger: w.ledger,
    logger,
    editor: w.editor,
    ...(w.commands ? { commands: w.commands } : {}),
    // Always: the masker learns hub users' secrets after the gateway is built (issue 36).
    mask: (text: string) => masker.maskJson(text),
    ...(w.agentIsHub ? { agentIsHub: w.agentIsHub } : {}),
    limits: {
      maxPromptBytes: limits.maxPromptBytes,
      sessionsPerMinute: limits.sessionsPerMinute,
      busyPrompt: limits.busyPrompt,
      ...w.limits,
    },
    connect:
      w.agent ??
      (async (): Promise<AgentPort> => {
        if (!launch) throw new HubError("USAGE", "no agent to start");
        // Each agent process gets a telemetry token of its own, released when it ends.
        const traced = agentTelemetry?.process();
        const agent = await connectAgent({
          process: takeEarly(),
          launch: traced ? { ...launch, env: traced.env } : launch,
          cwd: w.cwd,
          logger,
          host: w.host,
          stateDir: paths.stateDir,
          signal: w.signal,
          agentIsHub: w.agentIsHub !== undefined && w.agentIsHub !== false,
          ...connectionLimits(config),
        }).catch((error: unknown) => {
          traced?.release();
          throw error;
        });
        if (traced) void agent.closed.then(traced.release, traced.release);
        w.onAgent?.(agent);
        return withAgentServers(
          agent,
          agentServers(config, w.agentName),
          logger,
        );
      }),
  });
  if (w.tracing) gateway.observe(w.tracing.listener(w.agentName));
  if (agentTelemetry) gateway.observe(agentTelemetry.events);
  if (budgets) gateway.observe(budgets.listener(w.agentName));
  return gateway;
}

// The host services over an editor channel: permissions asked of the editor(s), the agent's
// other `_` requests and notifications relayed to them, and — when `forwardFs` — fs/terminal
// forwarded to an editor that advertised them (a network hub serves them itself).
export function hostForEditor(
  ctx: AppContext,
  editor: EditorChannel,
  forwardFs: boolean,
  hub?: Pick<HostWiring, "protect" | "rootsWhen" | "env"> & {
    /** Who owns a session, by acphub's session id (remembered decisions are per user). */
    ownerOf?: (hubSessionId: string) => Promise<string | undefined>;
  },
): HostServices {
  const { config, paths, logger } = ctx;
  const { ownerOf, ...hubWiring } = hub ?? {};
  const host = buildHost({
    ...hubWiring,
    config,
    stateDir: paths.stateDir,
    configFile: paths.configFile,
    mode: config.permissions?.mode ?? "ask",
    logger,
    approver: async (request, signal) =>
      (
        await editor.request<{ outcome: RequestPermissionOutcome }>(
          "session/request_permission",
          request,
          signal,
        )
      ).outcome,
    ...(forwardFs ? { editor } : {}),
    // The host knows the agent's session ids; the hub's grants are by acphub's.
    ...(ownerOf
      ? {
          ownerOf: async (id: string) => {
            const hubId = editor.sessions.hubIdOf(id);
            return hubId === undefined ? undefined : ownerOf(hubId);
          },
        }
      : {}),
  });
  warnSandboxOnce(host, logger);
  return {
    ...host,
    extensionFallback: (method, params, hostCtx) =>
      editor.request(method, params, hostCtx.signal),
    onExtNotification: (method, params) => editor.notify(method, params),
    relayedCapabilities: () =>
      relayedClientCapabilities(editor.editorCapabilities),
  };
}

// Tracing from config and OTEL_* (undefined when off: the SDK is not loaded), text masked.
export function tracingFor(ctx: AppContext): Promise<Tracing | undefined> {
  const masker = SecretMasker.fromEnv(process.env);
  return openTracing(ctx.config, ctx.logger, (text) => masker.mask(text));
}
