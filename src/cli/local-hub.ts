// The CLI as an in-process editor of the gateway: `run` and `chat` get the same ledger,
// restoration and policy as `acphub acp`, so their sessions can be listed, shown and resumed.
import type { AgentProcess } from "../agents/agent-process.js";
import { reapOrphans } from "../agents/orphans.js";
import {
  defaultAgentName,
  MOCK_AGENT_NAME,
  resolveAgent,
} from "../agents/registry.js";
import type { PermissionMode } from "../config/schema.js";
import type { RawSessionUpdate, RunEvent } from "../contracts/events.js";
import { Gateway } from "../gateway/gateway.js";
import type { EditorPort, SessionRecord } from "../gateway/ports.js";
import type { Approver } from "../host/permission-engine.js";
import { HubError } from "../shared/errors.js";
import { type CliContext } from "./context.js";
import { sandboxedLaunch } from "./sandbox-wiring.js";
import { buildGateway, buildHost, openLedger } from "./wiring.js";

export interface LocalHubOptions {
  ctx: CliContext;
  agent?: string;
  /** Continue this ledger session instead of starting one. */
  sessionId?: string;
  /** Replay the session's history to the renderer first (chat), or just resume it (run). */
  replay?: boolean;
  cwd: string;
  mode: PermissionMode;
  approver?: Approver;
  /** Everything the turn produces, as run events. */
  render: (event: RunEvent) => void;
  /** The agent, spawned early by the caller; used for the first connection. */
  prespawned?: AgentProcess;
}

export interface LocalHub {
  gateway: Gateway;
  agentName: string;
  sessionId: string;
  /** True when the bundled mock agent was picked because nothing was configured. */
  mockByDefault: boolean;
  /** One-line warnings for the user (the sandbox is missing). */
  notices: string[];
  close(): Promise<void>;
}

export function cliEditor(render: (event: RunEvent) => void): EditorPort {
  return {
    notify: (method, params) => {
      const p = params as {
        sessionId: string;
        update?: RawSessionUpdate;
        _meta?: Record<string, unknown>;
      };
      if (method === "session/update" && p.update) {
        render({
          type: "session_update",
          sessionId: p.sessionId,
          update: p.update,
          ...(p._meta ? { meta: p._meta } : {}),
        });
      }
      return Promise.resolve();
    },
    request: (method) =>
      Promise.reject(
        new HubError("UNSUPPORTED", `the CLI does not answer ${method}`),
      ),
    observe: (_sessionId, event) => render(event),
  };
}

export async function openLocalHub(o: LocalHubOptions): Promise<LocalHub> {
  const { config, paths, logger } = o.ctx;
  reapOrphans(paths.stateDir, logger);
  const ledger = await openLedger(o.ctx);
  let record: SessionRecord | undefined;
  if (o.sessionId) {
    record = await ledger.getSession(o.sessionId);
    if (!record) {
      await ledger.close();
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${o.sessionId} (see acphub sessions list)`,
      );
    }
  }
  const agentName = o.agent ?? record?.agent ?? defaultAgentName(config);
  let launch;
  try {
    launch = await sandboxedLaunch(
      resolveAgent(agentName, config),
      config,
      paths,
      o.cwd ?? process.cwd(),
    );
  } catch (error) {
    await ledger.close();
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
  });
  const close = async () => {
    await gateway.close();
    host.close();
  };
  gateway.attachEditor(cliEditor(o.render));
  try {
    await gateway.initialize({ protocolVersion: 1, clientCapabilities: {} });
    let sessionId: string;
    if (record) {
      sessionId = record.id;
      if (o.replay) await gateway.loadSession({ sessionId });
      else await gateway.resumeSession({ sessionId });
    } else {
      sessionId = String(
        (await gateway.newSession({ cwd: o.cwd, mcpServers: [] }))["sessionId"],
      );
    }
    const mockByDefault =
      agentName === MOCK_AGENT_NAME &&
      !o.agent &&
      !record &&
      !config.defaultAgent;
    const notices = host.sandboxWarning ? [host.sandboxWarning] : [];
    return { gateway, agentName, sessionId, mockByDefault, notices, close };
  } catch (error) {
    await close();
    throw error;
  }
}
