// The CLI as an in-process editor of the gateway: `run` and `chat` get the same ledger,
// restoration and policy as `acphub acp`, so their sessions can be listed, shown and resumed.
import { budgetsOf } from "../telemetry/budgets.js";
import type { AgentProcess } from "../agents/agent-process.js";
import type { AgentLaunch } from "../agents/registry.js";
import { reapOrphans } from "../agents/orphans.js";
import {
  defaultAgentName,
  MOCK_AGENT_NAME,
  resolveAgent,
} from "../agents/registry.js";
import type { PermissionMode } from "../config/schema.js";
import type { RawSessionUpdate } from "../contracts/events.js";
import { Gateway } from "../engine/gateway.js";
import type {
  EditorPort,
  NewSessionRecord,
  SessionRecord,
} from "../engine/ports.js";
import { openLedgerAt } from "../ledger/open.js";
import type { Approver } from "../host/permission-engine.js";
import { HubError } from "../shared/errors.js";
import { once } from "../shared/once.js";
import { noticeFrom, type CliEvent } from "./client-events.js";
import type { AppContext } from "../config/context.js";
import { workflowCommands } from "../workflows/runtime/commands.js";
import { sandboxedLaunch } from "./sandbox.js";
import { stepTracing } from "./step-tracing.js";
import {
  buildGateway,
  buildHost,
  openLedger,
  runHostFactory,
  tracingFor,
} from "./wiring.js";

export interface LocalClientOptions {
  ctx: AppContext;
  agent?: string;
  /** Continue this ledger session instead of starting one. */
  sessionId?: string;
  /** Replay the session's history to the renderer first (chat), or just resume it (run). */
  replay?: boolean;
  cwd: string;
  mode: PermissionMode;
  approver?: Approver;
  /** Everything the turn produces, as run events, and acphub's notices. */
  render: (event: CliEvent) => void;
  /** What to launch instead of a registry agent (the shim to a hub, for `--hub`). */
  launch?: AgentLaunch;
  /** The agent is a running hub (`--hub`): the hub records the session (nothing is recorded
   *  here) and its ids are the ones taken and shown. */
  viaHub?: boolean;
  /** The agent, spawned early by the caller; used for the first connection. */
  prespawned?: AgentProcess;
  /** Offer the workflows as slash commands (chat); gates go to the approver. */
  workflows?: boolean;
  /** Aborts starting (spawn, initialize, session): the agent is stopped. */
  signal?: AbortSignal;
}

/** A command the agent offers (sent to it as a `/name` prompt). */
export interface AgentCommand {
  name: string;
  description?: string;
}

export interface LocalClient {
  gateway: Gateway;
  agentName: string;
  sessionId: string;
  /** True when the bundled mock agent was picked because nothing was configured. */
  mockByDefault: boolean;
  /** One-line warnings for the user (the sandbox is missing). */
  notices: string[];
  /** The agent's commands, as it last announced them (available_commands_update). */
  agentCommands(): AgentCommand[];
  close(): Promise<void>;
  /** Exiting at once (a second Ctrl-C): the running turn's span is sent first, within 1 s. */
  exitNow(): Promise<void>;
}

/** How long exiting at once waits for the spans left (a second Ctrl-C). */
const EXIT_NOW_FLUSH_MS = 1000;

// The CLI as the gateway's editor: it shows notices (so acphub's voice never arrives as an
// agent message) and renders everything else as run events; workflow gates go to the approver.
export function cliEditor(
  render: (event: CliEvent) => void,
  approver?: Approver,
): EditorPort {
  return {
    notify: (method, params) => {
      const p = params as {
        sessionId: string;
        update?: RawSessionUpdate;
        _meta?: Record<string, unknown>;
      };
      if (method === "session/update" && p.update) {
        const notice = noticeFrom(p.sessionId, p.update);
        if (notice) render(notice);
        else
          render({
            type: "session_update",
            sessionId: p.sessionId,
            update: p.update,
            ...(p._meta ? { meta: p._meta } : {}),
          });
      }
      return Promise.resolve();
    },
    // Workflow gates ask the person at the terminal, when there is one.
    request: async <T>(
      method: string,
      params: unknown,
      signal?: AbortSignal,
    ) => {
      if (method !== "session/request_permission" || !approver)
        throw new HubError("UNSUPPORTED", `the CLI does not answer ${method}`);
      const request = params as Parameters<Approver>[0];
      const outcome = await approver(
        request,
        signal ?? new AbortController().signal,
      );
      return { outcome } as T;
    },
    observe: (_sessionId, event) => render(event),
  };
}

// The record of a hub's session continued with `--hub --session ID`: the hub's id is its id.
function hubSession(id: string, cwd: string): NewSessionRecord {
  const now = Date.now();
  return {
    id,
    agent: "hub",
    cwd,
    title: null,
    createdAt: now,
    updatedAt: now,
    state: "active",
    agentSessionId: id,
    request: { mcpServers: [] },
  };
}

export async function openLocalClient(
  o: LocalClientOptions,
): Promise<LocalClient> {
  const { config, paths, logger } = o.ctx;
  reapOrphans(paths.stateDir, logger);
  // `run`, `chat` trace like `acp` (issue 40); with --hub the hub continues the trace.
  const tracing = await tracingFor(o.ctx);
  const ledger = o.viaHub
    ? await openLedgerAt(":memory:", { logger })
    : await openLedger(o.ctx, tracing);
  const closeEarly = async () => {
    await ledger.close();
    await tracing?.shutdown();
  };
  let record: SessionRecord | undefined;
  if (o.sessionId) {
    if (o.viaHub) await ledger.createSession(hubSession(o.sessionId, o.cwd));
    record = await ledger.getSession(o.sessionId);
    if (!record) {
      await closeEarly();
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${o.sessionId} (see acphub sessions list)`,
      );
    }
  }
  const agentName =
    o.launch?.name ?? o.agent ?? record?.agent ?? defaultAgentName(config);
  let launch;
  try {
    launch =
      o.launch ??
      (await sandboxedLaunch(
        resolveAgent(agentName, config),
        config,
        paths,
        o.cwd ?? process.cwd(),
      ));
  } catch (error) {
    await closeEarly();
    throw error;
  }
  const host = buildHost({
    config,
    stateDir: paths.stateDir,
    configFile: paths.configFile,
    mode: o.mode,
    approver: o.approver,
    logger,
  });
  const gateway = buildGateway({
    ctx: o.ctx,
    agentName,
    launch,
    ledger,
    host,
    cwd: record?.cwd ?? o.cwd,
    prespawned: o.prespawned,
    ...(o.viaHub ? { agentIsHub: o.replay ? "replay" : true } : {}),
    ...(o.workflows
      ? {
          commands: workflowCommands(
            o.ctx,
            ledger,
            runHostFactory(o.ctx),
            undefined,
            budgetsOf(o.ctx.config, ledger),
            tracing ? stepTracing(tracing) : undefined,
          ),
        }
      : {}),
    signal: o.signal,
    ...(tracing ? { tracing } : {}),
  });
  // Spans left are sent before the command exits, whatever its exit code.
  const close = once(async () => {
    try {
      await gateway.close();
      host.close();
    } finally {
      await tracing?.shutdown();
    }
  });
  // The agent's commands as it last announced them (chat's /help and slash commands).
  let commands: AgentCommand[] = [];
  const render = (event: CliEvent) => {
    const u = event.type === "session_update" ? event.update : undefined;
    if (u?.sessionUpdate === "available_commands_update")
      commands =
        (u as { availableCommands?: AgentCommand[] }).availableCommands ?? [];
    o.render(event);
  };
  gateway.attachEditor(cliEditor(render, o.approver));
  // Giving up on starting closes everything started so far, which fails what is pending.
  const onAbort = () => void close();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (o.signal?.aborted) throw new HubError("CLOSED", "starting was aborted");
    // The CLI shows notices: acphub's messages about the session come as `notice` updates.
    await gateway.initialize({
      protocolVersion: 1,
      clientCapabilities: { session: { notices: {} } },
    });
    let sessionId: string;
    if (record) {
      sessionId = record.id;
      // session/load answers before the agent is restored; the CLI waits for the restoration
      // (and its notice) before the first prompt, as resume does.
      if (o.replay) await gateway.loadSession({ sessionId });
      await gateway.resumeSession({ sessionId });
    } else {
      sessionId = String(
        (await gateway.newSession({ cwd: o.cwd, mcpServers: [] }))["sessionId"],
      );
      // The commands advertised after session/new are known before the first prompt (/help).
      await gateway.settled(sessionId);
    }
    const mockByDefault =
      agentName === MOCK_AGENT_NAME &&
      !o.agent &&
      !record &&
      !config.defaultAgent;
    const notices = host.sandboxWarning ? [host.sandboxWarning] : [];
    const agentCommands = () => commands;
    return {
      gateway,
      agentName,
      sessionId,
      mockByDefault,
      notices,
      agentCommands,
      close,
      exitNow: async () => tracing?.exitNow(EXIT_NOW_FLUSH_MS),
    };
  } catch (error) {
    await close();
    throw error;
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
  }
}

/** What the commands' terminal parts take: a permission asker, the gateway `/` commands drive. */
export type { Approver, Gateway };
