// Wires the session hub `acphub serve` runs: one gateway (and host services) per agent, all
// over one ledger; permission questions go to the hub's attached editors.
import { reapOrphans } from "../agents/orphans.js";
import { resolveAgent } from "../agents/registry.js";
import { EditorChannel } from "../engine/editor-channel.js";
import type { Gateway } from "../engine/gateway.js";
import { SessionTable } from "../engine/session-table.js";
import type { TurnGate } from "../engine/turn-gate.js";
import type { LedgerPort } from "../engine/ports.js";
import { SessionHub } from "../hub/session-hub.js";
import type { HostServices } from "../host/create-host.js";
import type { HubMetrics } from "../server/metrics.js";
import type { TerminalReader } from "../hub/terminal-output.js";
import { resourceNotFound } from "../protocol/wire-errors.js";
import type { AppContext } from "../config/context.js";
import { sandboxedLaunch } from "./sandbox.js";
import { hubFolders, type ServeFiles } from "./hub-folders.js";
import {
  createClusterNode,
  joinHub,
  type ClusterNode,
  type FollowableLedger,
} from "../cluster/index.js";
import {
  buildGateway,
  hostForEditor,
  ledgerUrl,
  openLedger,
  tracingFor,
} from "./wiring.js";
import type { UserStore } from "../contracts/users.js";
import { budgetsOf } from "../telemetry/budgets.js";
import { userStoreOf } from "../ledger/open.js";
import type { PostgresLedger } from "../ledger/postgres/pg-ledger.js";
import type { HubUser } from "../contracts/users.js";
import { agentsFor, serveAgentRules } from "./serve-agents.js";
import { serveUsers, type ServeUsers } from "./serve-users.js";
import { auditWriter } from "./audit-log.js";

export interface ServeHub {
  hub: SessionHub;
  /** The users, grants and audit log in the ledger's database (issue 22). */
  users: UserStore;
  /** Who each request is (the users directory), logins, revocations. */
  people: ServeUsers;
  /** The agents this user may start, for `_acphub/agents`. */
  listAgents(user: HubUser | undefined): unknown[];
  /** Where this user's new sessions start unless they name a folder (`_acphub/agents`). */
  defaultFolder(user: HubUser | undefined): Promise<string>;
  /** A terminal the host of an agent runs, for `_acphub/terminal/output`. */
  readTerminal: TerminalReader;
  /** This process as a node of a cluster: with a PostgreSQL ledger only. */
  cluster?: ClusterNode;
  /** Cancels turns, closes agents and host services, flushes the ledger. */
  close(): Promise<void>;
}

export interface ServeHubOptions {
  agent: string | undefined;
  metrics: HubMetrics;
  cancelOnDisconnect: boolean;
  files?: ServeFiles;
  /** The serve token: its holder is the built-in admin. */
  serveToken: string;
}

// Opens the ledger first: one that cannot be opened (Postgres unreachable) stops serve here.
export async function openServeHub(
  ctx: AppContext,
  o: ServeHubOptions,
): Promise<ServeHub> {
  const { agent, metrics, cancelOnDisconnect } = o;
  const { config, paths, logger } = ctx;
  const folders = await hubFolders(ctx, o.files ?? {});
  reapOrphans(paths.stateDir, logger);
  const rules = serveAgentRules(config, agent, logger);
  const defaultAgent = rules.defaultAgent;
  const tracing = await tracingFor(ctx);
  const ledger = await openLedger(ctx, tracing);
  // One budget count for all agents: a user's budget spans them.
  const budgets = budgetsOf(config, ledger);
  /** The host of each agent's current gateway, for `readTerminal`. */
  const hostOf = new Map<string, HostServices>();
  let closing = false;
  const createGateway = async (
    name: string,
    ledger: LedgerPort,
    turns: TurnGate,
  ): Promise<Gateway> => {
    // No host without a gateway: the agent is resolved and launched before the host exists.
    const launch = await sandboxedLaunch(
      resolveAgent(name, config),
      config,
      { ...paths, protect: folders.protect },
      process.cwd(),
    );
    const editor = new EditorChannel(new SessionTable(turns));
    // Remembered decisions are per user: the session's owner's answer in it (issue 34).
    const host = hostForEditor(ctx, editor, false, {
      protect: folders.protect,
      rootsWhen: folders.rootsWhen,
      ownerOf: (id) => hub.access.ownerOf(id),
    });
    const gateway = buildGateway({
      ctx,
      agentName: name,
      launch,
      ledger,
      host,
      editor,
      ...(tracing ? { tracing } : {}),
      ...(budgets ? { budgets } : {}),
      limits: {
        sessionsPerMinute: Number.MAX_SAFE_INTEGER,
        busyPrompt: "reject",
      },
      onAgent: (a) => {
        metrics.agentSpawned();
        void a.closed.then(() => {
          if (!closing) metrics.agentCrashed();
        });
      },
    });
    gateway.observe(metrics.usage(name));
    // A name gets a new gateway only after its last one failed to start: its host goes.
    hostOf.get(name)?.close();
    hostOf.set(name, host);
    return gateway;
  };
  const users = userStoreOf(ledger);
  const people = await serveUsers(ctx, o.serveToken, users);
  const cluster = clusterOf(ctx, ledger);
  const hub = new SessionHub({
    audit: auditWriter(users),
    authorOf: people.authorOf,
    checkFolders: folders.check,
    access: users,
    runner: cluster,
    ledger: metrics.timeLedger(ledger),
    defaultAgent,
    agentRules: rules,
    createGateway,
    cancelOnDisconnect,
    idleSessionMs: config.serve?.idleSessionMs,
    answerGraceMs: config.serve?.answerGraceMs,
    observer: metrics.observer,
    logger,
  });
  if (cluster) {
    joinHub(cluster, hub, ledger as unknown as FollowableLedger, logger);
    metrics.cluster(() => ({
      node: cluster.nodeId,
      running: hub.liveTurns,
      ...cluster.gauges(),
    }));
  }
  const listAgents = (user: HubUser | undefined) =>
    agentsFor(rules, config, user);
  const readTerminal: TerminalReader = (agentName, sessionId, terminalId) => {
    const host = hostOf.get(agentName);
    if (!host)
      throw resourceNotFound(`no terminal ${terminalId} in this session`);
    return host.terminals.peek(sessionId, terminalId);
  };
  return {
    hub,
    users,
    people,
    listAgents,
    defaultFolder: folders.defaultFolder,
    readTerminal,
    cluster,
    close: async () => {
      closing = true;
      people.directory.stop();
      await hub.close();
      for (const host of hostOf.values()) host.close();
      await cluster?.stop();
      await tracing?.shutdown();
    },
  };
}

// A PostgreSQL ledger makes this process a node of a cluster (docs/deploy.md).
function clusterOf(
  ctx: AppContext,
  ledger: LedgerPort,
): ClusterNode | undefined {
  const url = ledgerUrl(ctx);
  if (!/^postgres(ql)?:/.test(url) || !("follow" in ledger)) return undefined;
  const { leaseMs, heartbeatMs } = ctx.config.cluster ?? {};
  const fenced = ledger as Partial<Pick<PostgresLedger, "fenceAs">>;
  return createClusterNode({
    url,
    leaseMs,
    heartbeatMs,
    logger: ctx.logger,
    fenceAs: (id) => fenced.fenceAs?.(id),
  });
}
