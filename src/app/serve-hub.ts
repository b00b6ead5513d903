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
  ClusterQuotaCounter,
  createClusterNode,
  type ClusterNode,
} from "../cluster/index.js";
import {
  InProcessQuotaCounter,
  type QuotaCounter,
} from "../hub/quota-counter.js";
import { ledgerWith } from "../engine/events.js";
import {
  buildGateway,
  hostForEditor,
  openLedger,
  tracingFor,
} from "./wiring.js";
import type { UserStore } from "../contracts/users.js";
import { budgetsOf } from "../telemetry/budgets.js";
import type { OpenLedger } from "../ledger/open.js";
import type { HubUser } from "../contracts/users.js";
import { agentsFor, serveAgentRules } from "./serve-agents.js";
import { serveUsers, type ServeUsers } from "./serve-users.js";
import { auditWriter } from "./audit-log.js";
import type { UserSecretsPort } from "../contracts/user-secrets.js";
import type { AgentEnvSource } from "../contracts/agent-env.js";
import {
  agentEnvSource,
  checkSecretsKeyAtStart,
  secretsCheck,
  userSecretsPort,
} from "./user-secrets.js";

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
  /** The users' secrets for `_acphub/secrets/*` (issue 36): the key stays in app/. */
  secrets: UserSecretsPort;
  /** What a user's agent process adds to its environment: the option's, else their secrets. */
  agentEnv: AgentEnvSource;
  /** This process as a node of a cluster: with a PostgreSQL ledger only. */
  cluster?: ClusterNode;
  /** Where per-user quotas are counted: the cluster's ledger, else this process. */
  quotaCounter: QuotaCounter;
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
  /** What each user's agent gets added to its environment; none: their secrets (issue 36). */
  agentEnv?: AgentEnvSource;
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
  // Secrets stored and no key to open them: refused here, with the line that makes one.
  const keyCheck = {
    secrets: ledger.secrets,
    users: ledger.users,
    stateDir: paths.stateDir,
  };
  await checkSecretsKeyAtStart(keyCheck, (m) => logger.warn(m)).catch(
    async (error: unknown) => {
      await ledger.close();
      throw error;
    },
  );
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
  const users = ledger.users;
  const people = await serveUsers(ctx, o.serveToken, users);
  const cluster = clusterOf(ctx, ledger, () => hub);
  if (cluster) tracing?.setNode(() => cluster.nodeId || undefined);
  const timed = metrics.timeLedger(ledger);
  const hub: SessionHub = new SessionHub({
    audit: auditWriter(users),
    authorOf: people.authorOf,
    checkFolders: folders.check,
    // A port given instead of the secrets' (tests) does its own refusing.
    ...(o.agentEnv
      ? {}
      : {
          checkSecrets: secretsCheck(
            ledger.secrets,
            (agent) => config.agents?.[agent]?.env,
          ),
        }),
    access: users,
    runner: cluster,
    // The hub closes the ledger after its agents; the node leaves the cluster in between: its
    // last turn ends are written under its leases, and it leaves through the ledger's pool.
    ledger: cluster
      ? ledgerWith(timed, {
          close: () => cluster.stop().then(() => timed.close()),
        })
      : timed,
    defaultAgent,
    agentRules: rules,
    createGateway,
    cancelOnDisconnect,
    idleSessionMs: config.serve?.idleSessionMs,
    maxQueuedPrompts: config.serve?.maxQueuedPrompts,
    answerGraceMs: config.serve?.answerGraceMs,
    observer: metrics.observer,
    logger,
  });
  if (cluster) {
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
    secrets: userSecretsPort({
      users,
      secrets: ledger.secrets,
      stateDir: paths.stateDir,
      audit: auditWriter(users),
    }),
    agentEnv:
      o.agentEnv ??
      agentEnvSource({ secrets: ledger.secrets, stateDir: paths.stateDir }),
    cluster,
    quotaCounter:
      cluster && ledger.cluster
        ? new ClusterQuotaCounter(ledger.cluster.quotas, cluster, logger)
        : new InProcessQuotaCounter(),
    close: async () => {
      closing = true;
      people.directory.stop();
      await hub.close();
      for (const host of hostOf.values()) host.close();
      await tracing?.shutdown();
    },
  };
}

// A PostgreSQL ledger makes this process a node of a cluster (docs/deploy.md).
function clusterOf(
  ctx: AppContext,
  ledger: OpenLedger,
  hub: () => SessionHub,
): ClusterNode | undefined {
  if (!ledger.cluster) return undefined;
  const { leaseMs, heartbeatMs } = ctx.config.cluster ?? {};
  return createClusterNode({
    store: ledger.cluster,
    hub,
    leaseMs,
    heartbeatMs,
    logger: ctx.logger,
  });
}
