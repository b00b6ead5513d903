// Wires the session hub `acphub serve` runs: one gateway (and host services) per agent process
// — per user, agent and launch (issue 36) — all over one ledger; permission questions go to the
// hub's attached editors.
import { reapOrphans } from "../agents/orphans.js";
import { resolveAgent } from "../agents/registry.js";
import { EditorChannel } from "../engine/editor-channel.js";
import type { NodeRow } from "../contracts/cluster-store.js";
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
import { InProcessQuotaCounter } from "../hub/quota-counter.js";
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
import type { WebLoginStore } from "../contracts/web-logins.js";
import type { HubUser } from "../contracts/users.js";
import { agentsFor, serveAgentRules } from "./serve-agents.js";
import { serveUsers, type ServeUsers } from "./serve-users.js";
import { auditWriter } from "./audit-log.js";
import type { UserSecretsPort } from "../contracts/user-secrets.js";
import type { AgentEnvSource } from "../contracts/agent-env.js";
import {
  agentEnvSource,
  checkSecretsKeyAtStart,
  userSecretsPort,
} from "./user-secrets.js";
import { agentRuns } from "./agent-runs.js";
import { runKey, type ProcessRun } from "../hub/process-run.js";
import { Quotas } from "../hub/quotas.js";

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
  /** The users' quotas (users.limits), prompts' and agent processes' alike. */
  quotas: Quotas;
  /** This process as a node of a cluster: with a PostgreSQL ledger only. */
  cluster?: ClusterNode;
  /** The nodes of its cluster as the ledger holds them (the admin page's `_acphub/nodes`). */
  listNodes?: () => Promise<NodeRow[]>;
  /** The web page's logins every node shares (a cluster's; issue 38). */
  webLogins?: WebLoginStore;
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
  /** The host of each agent process's current gateway (by the pool's key), for `readTerminal`. */
  const hostOf = new Map<string, HostServices>();
  // A sandboxed agent's launch holds a temp folder and a network list until its process goes.
  const releaseOf = new Map<string, () => void>();
  // What a process's gateway held goes with it: its host, its launch's sandbox.
  const letGo = (key: string) => {
    hostOf.get(key)?.close();
    hostOf.delete(key);
    releaseOf.get(key)?.();
    releaseOf.delete(key);
  };
  /** The processes the hub closed itself (idle, over a limit, user removed): not crashes. */
  const retired = new Map<string, { retired: boolean }>();
  let closing = false;
  const users = ledger.users;
  const people = await serveUsers(ctx, o.serveToken, users);
  const cluster = clusterOf(ctx, ledger, () => hub);
  // Counted where every node of a cluster sees them (its ledger), else in this process.
  const quotas = new Quotas(
    { ...config.users, stored: (name) => people.directory.limitsOf(name) },
    cluster && ledger.cluster
      ? new ClusterQuotaCounter(ledger.cluster.quotas, cluster, logger)
      : new InProcessQuotaCounter(),
  );
  const runs = agentRuns({
    config,
    stateDir: paths.stateDir,
    agentEnv:
      o.agentEnv ??
      agentEnvSource({ secrets: ledger.secrets, stateDir: paths.stateDir }),
    userOf: (name) => people.directory.byName(name),
    quotas,
    hasUsers: () => people.directory.hasUsers,
    idleMs: config.serve?.idleAgentMs,
  });
  const createGateway = async (
    name: string,
    ledger: LedgerPort,
    turns: TurnGate,
    run: ProcessRun,
  ): Promise<Gateway> => {
    const key = runKey(run);
    const planned = runs.launchOf(run);
    // No host without a gateway: the agent is resolved and launched before the host exists.
    const launch = await sandboxedLaunch(
      planned?.launch ?? resolveAgent(name, config),
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
      // A member's terminals start from their agent's environment, never the operator's.
      ...(planned?.member ? { env: planned.launch.env } : {}),
    });
    const state = { retired: false };
    retired.set(key, state);
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
          if (!closing && !state.retired) metrics.agentCrashed();
        });
      },
    });
    gateway.observe(metrics.usage(name));
    // A process gets a new gateway only after its last one failed to start: what it held goes.
    letGo(key);
    hostOf.set(key, host);
    if (launch.release) releaseOf.set(key, launch.release);
    return gateway;
  };
  if (cluster) tracing?.setNode(() => cluster.nodeId || undefined);
  const agentTokens = tracing?.agentTokens;
  if (agentTokens) metrics.agentTelemetry(agentTokens);
  const timed = metrics.timeLedger(ledger);
  const hub: SessionHub = new SessionHub({
    audit: auditWriter(users),
    authorOf: people.authorOf,
    checkFolders: folders.check,
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
    processes: runs.policy,
    // The hub closed a process (idle, over a limit, its user removed): its host goes too.
    processClosed: (key) => {
      const state = retired.get(key);
      if (state) state.retired = true;
      retired.delete(key);
      letGo(key);
    },
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
  // A removed user's agent processes end (their sessions stay in the ledger); a rotated
  // user's token changes nothing of their agents.
  people.onRevoked.push((name) => {
    if (!people.directory.byName(name)) void hub.endUserProcesses(name);
  });
  const readTerminal: TerminalReader = (process, sessionId, terminalId) => {
    const host = hostOf.get(process);
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
    quotas,
    cluster,
    ...(ledger.cluster ? { listNodes: ledger.cluster.listNodes } : {}),
    webLogins: cluster ? ledger.cluster?.webLogins : undefined,
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
