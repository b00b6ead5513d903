// The hub's shared core for many editor connections at once: one gateway per agent (sharing
// the ledger), sessions any connection can attach to (replay, then live, stitched by sequence
// number), the prompting connection tracked for permission requests, and prompts that carry
// an idempotency key answered from the ledger when they were already run. Its parts: the
// gateways (gateway-pool.ts), the checks (session-checks.ts), prompts (prompts.ts, with
// prompt-admission.ts, recorded-prompts.ts and running-turns.ts; the one turn gate), the
// cluster's lease and requests carried to a session's node (cluster-claims.ts, session-calls.ts)
// and the turns a stop cut off (interrupted-turns.ts).
import { silentLogger, type Logger } from "../shared/logger.js";
import type { Gateway } from "../engine/gateway.js";
import { ledgerWith } from "../engine/events.js";
import { Attachments, type HubClient } from "./attachments.js";
import { SessionAccess } from "./access.js";
import { HubWatch } from "./watch.js";
import { hubEditor, hubEngineEvents } from "./hub-editor.js";
import { DEFAULT_IDLE_SESSION_MS, IdleSessions } from "./idle-sessions.js";
import type { EditorPort, LedgerPort, SessionRecord } from "../engine/ports.js";
import { lastSeq } from "./turn-records.js";
import { stampedParams } from "../engine/wire-updates.js";
import type { SessionRunner } from "./runner.js";
import type { HubUser } from "../contracts/users.js";
import { GatewayPool } from "./gateway-pool.js";
import { SessionProcesses } from "./session-processes.js";
import { RunningTurns } from "./running-turns.js";
import { TurnGate } from "../engine/turn-gate.js";
import type { Quotas } from "./quotas.js";
import { InterruptedTurns, type EndHow } from "./interrupted-turns.js";
import { ClusterClaims } from "./cluster-claims.js";
import { SessionCalls } from "./session-calls.js";
import type { SessionHubOptions } from "./session-hub-options.js";
import { SessionChecks } from "./session-checks.js";
import { listPage } from "../engine/session-ops.js";
import { HubPrompts } from "./prompts.js";
import { SessionOpening } from "./session-opening.js";
import type { AgentRules } from "./agent-rules.js";
import type { FolderCheck } from "./session-folder.js";
import type { ReplayAnswer } from "../shared/hub-extension.js";
import { DEFAULT_MAX_QUEUED_PROMPTS, PromptQueue } from "./prompt-queue.js";
import { withTurnsElsewhere } from "./listed-elsewhere.js";

type Params = Record<string, unknown>;

export type { SessionHubObserver } from "./hub-editor.js";
export type { SessionHubOptions } from "./session-hub-options.js";

export class SessionHub {
  readonly attachments = new Attachments();
  // Whether a watching client may hear of a session (issue 22: only the ones its user may see).
  readonly watch = new HubWatch(this.attachments, (client, id) =>
    this.access.mayTell(client.user, id),
  );
  private readonly editor: EditorPort;
  private readonly shared: LedgerPort;
  private readonly gateways: GatewayPool;
  /** Which process runs each session (its owner's), remembered from its open. */
  readonly processes: SessionProcesses;
  /** The one gate of turns and cancels, shared by every gateway of the hub. */
  private readonly turns = new TurnGate();
  /** What the hub knows of the turns running here (keys, answers, users). */
  readonly running = new RunningTurns();
  private readonly checks: SessionChecks;
  private readonly claims: ClusterClaims;
  private readonly prompts: HubPrompts;
  /** Prompts queued while a turn runs (issue 37). */
  readonly queue: PromptQueue;
  private readonly opening: SessionOpening;
  private readonly calls: SessionCalls;
  private readonly logger: Logger;
  private readonly idle: IdleSessions;
  readonly access: SessionAccess;
  /** The name recorded as a prompt's author (issue 22); none unless the options give one. */
  readonly authorOf: (user: HubUser | undefined) => string | undefined;
  /** Refuses session folders outside the user's roots (issue 34); none unless given. */
  readonly checkFolders: FolderCheck;

  constructor(private readonly options: SessionHubOptions) {
    this.logger = options.logger ?? silentLogger();
    this.authorOf = options.authorOf ?? (() => undefined);
    this.checkFolders = options.checkFolders ?? (() => Promise.resolve());
    this.access = new SessionAccess(options.access, options.audit);
    this.editor = hubEditor(
      this.attachments,
      this.watch,
      this.access,
      options.observer,
      options.answerGraceMs,
      options.runner?.questions,
    );
    // Every gateway shares the ledger; the hub closes it once, after them all.
    this.shared = ledgerWith(options.ledger, {
      close: () => Promise.resolve(),
    });
    this.gateways = new GatewayPool({
      create: options.createGateway,
      ledger: this.shared,
      events: hubEngineEvents(this.watch, this.shared, options.observer),
      editor: this.editor,
      turns: this.turns,
      logger: this.logger,
      inUse: (gateway, key) => this.processes.inUse(gateway, key),
      limits: options.processes?.limits,
      idleMs: options.processes?.idleMs,
      onClosed: (_run, key) => {
        this.processes.closed(key);
        options.processClosed?.(key);
      },
    });
    this.processes = new SessionProcesses(
      this.gateways,
      this.access,
      (id) => this.running.has(id) || this.attachments.attached(id).length > 0,
      options.processes,
    );
    this.checks = new SessionChecks(this.shared, this.access, this.attachments);
    const interrupted = new InterruptedTurns({
      ledger: this.shared,
      editor: this.editor,
      watch: this.watch,
      runsHere: (id) => this.running.has(id),
      logger: this.logger,
    });
    // What the hub's parts share (each takes the ones it needs).
    const parts = {
      defaultAgent: options.defaultAgent,
      agentRules: options.agentRules,
      runner: options.runner,
      ledger: this.shared,
      turns: this.turns,
      running: this.running,
      gateways: this.gateways,
      processes: this.processes,
      access: this.access,
      attachments: this.attachments,
      checks: this.checks,
      logger: this.logger,
      endInterrupted: (id: string, how?: EndHow) => interrupted.end(id, how),
      interruptedSettled: (id: string) => interrupted.settled(id),
      authorOf: (user: HubUser | undefined) => this.authorOf(user),
      checkFolders: this.checkFolders,
    };
    this.claims = new ClusterClaims(parts);
    this.queue = new PromptQueue({
      ...parts,
      editor: this.editor,
      maxQueued: options.maxQueuedPrompts ?? DEFAULT_MAX_QUEUED_PROMPTS,
    });
    this.prompts = new HubPrompts({
      ...parts,
      claims: this.claims,
      queue: this.queue,
    });
    this.opening = new SessionOpening({
      ...parts,
      claims: this.claims,
      dropLeftOver: (id) => this.queue.dropLeftOver(id),
    });
    this.calls = new SessionCalls({
      ...parts,
      claims: this.claims,
      queue: this.queue,
    });
    this.idle = new IdleSessions(
      options.idleSessionMs ?? DEFAULT_IDLE_SESSION_MS,
      () => this.gateways.ready,
      (id) => this.running.has(id) || this.attachments.attached(id).length > 0,
      this.logger,
    );
  }

  get defaultAgent(): string {
    return this.options.defaultAgent;
  }

  get ledger(): LedgerPort {
    return this.shared;
  }

  get agentRules(): AgentRules | undefined {
    return this.options.agentRules;
  }

  // The admin's (or, without users, the one) process of an agent: requests about no session.
  gatewayFor(agentName: string): Promise<Gateway> {
    return this.processes.defaultGateway(agentName);
  }

  // A user removed from the hub: their agent processes end; their sessions stay in the ledger.
  endUserProcesses(user: string): Promise<void> {
    return this.gateways.closeUser(user);
  }

  addClient(client: HubClient): void {
    this.attachments.addClient(client);
  }

  // A connection left: detach it everywhere, and cancel its turns if configured to.
  removeClient(client: HubClient): void {
    for (const sessionId of this.running.sessionIds()) {
      if (
        this.options.cancelOnDisconnect &&
        this.attachments.owner(sessionId) === client
      )
        void this.cancel({ sessionId });
    }
    this.attachments.detach(client);
  }

  // A session by id; with a client, only one its user may see (else exactly "no session").
  record(id: unknown, client?: HubClient): Promise<SessionRecord> {
    return this.checks.record(id, client);
  }

  // Refuses a client whose user may only watch the session (or not see it at all).
  mustDrive(client: HubClient, sessionId: unknown): Promise<void> {
    return this.checks.mustDrive(client, sessionId);
  }

  // A session this connection has opened or loaded; others must be loaded first.
  attachedRecord(client: HubClient, id: unknown): Promise<SessionRecord> {
    return this.checks.attachedRecord(client, id);
  }

  // Attaches a client and sends it what it missed: see SessionOpening.catchUp.
  catchUp(
    client: HubClient,
    sessionId: string,
    afterSeq: number,
  ): Promise<void> {
    return this.opening.catchUp(client, sessionId, afterSeq);
  }

  newSession(client: HubClient, params: Params): Promise<Params> {
    return this.opening.newSession(client, params);
  }

  loadSession(client: HubClient, params: Params): Promise<Params> {
    return this.opening.loadSession(client, params);
  }

  resumeSession(client: HubClient, params: Params): Promise<Params> {
    return this.opening.resumeSession(client, params);
  }

  /** What a client missed: the updates after its cursor, and how the last turn stands. */
  async replay(record: SessionRecord, params: Params): Promise<ReplayAnswer> {
    const afterSeq = Number(params["afterSeq"] ?? 0);
    const stored = await this.shared.read(record.id, { afterSeq });
    return {
      updates: stampedParams(record.id, stored, afterSeq),
      lastSeq: lastSeq(stored, afterSeq),
      // A turn another node runs counts (issue 38): the watch heard of it from the ledger.
      running: this.running.has(record.id) || this.watch.isRunning(record.id),
    };
  }

  // session/prompt: see prompts.ts (checks, idempotency, one turn at a time, the lease).
  prompt(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
    quotas?: Quotas,
  ): Promise<Params> {
    return this.prompts.prompt(client, params, signal, quotas);
  }

  /** A turn another node runs: if that node stopped answering, taken over when its lease lapses. */
  async checkRunner(sessionId: string): Promise<void> {
    await this.claims.takeovers.check(sessionId);
  }

  // This process may no longer run the session: see ClusterClaims.giveUp.
  giveUp(sessionId: string, stillHeld: () => boolean): Promise<void> {
    return this.claims.giveUp(sessionId, stillHeld);
  }

  /** Forgets the agent's live session here: another process runs it now (cluster handover). */
  release(sessionId: string): Promise<void> {
    return this.claims.release(sessionId);
  }

  // session/cancel: see SessionCalls.cancel (the one registry; a turn elsewhere is told).
  cancel(params: Params, client?: HubClient): Promise<void> {
    return this.calls.cancel(params, client);
  }

  // session/list: one ledger query (only the sessions the user may see), each session with its
  // agent and its state as the watch knows it, or as the leases say for turns elsewhere.
  async listSessions(params: Params, client?: HubClient): Promise<Params> {
    const sharedWith = this.access.sharedWith(client?.user);
    const page = await listPage({ ledger: this.shared }, params, {
      ...(sharedWith === undefined ? {} : { sharedWith }),
      acphub: (s) => ({ agent: s.agent, ...this.watch.listed(s.id) }),
    });
    return withTurnsElsewhere(page, this.options.runner, this.logger, (id) =>
      this.attachments.followed(id),
    );
  }

  // Detaches this connection; the agent's session may end: see SessionCalls.closeSession.
  closeSession(client: HubClient, params: Params): Promise<Params> {
    return this.calls.closeSession(client, params);
  }

  // A request about a session on its gateway here, or carried to the live node that runs it.
  onRunner(...call: Parameters<SessionCalls["onRunner"]>): Promise<unknown> {
    return this.calls.onRunner(...call);
  }

  // A request about a session run here, or carried to the live node that runs it.
  hereOrRunner(
    ...call: Parameters<SessionCalls["hereOrRunner"]>
  ): Promise<unknown> {
    return this.calls.hereOrRunner(...call);
  }

  /** Who decides where a session's agent runs (a cluster node), if any. */
  get runner(): SessionRunner | undefined {
    return this.options.runner;
  }

  /** Restores the session's agent here (an admin moved the session to this node). */
  restoreHere(sessionId: string): Promise<Params> {
    return this.calls.restoreHere(sessionId);
  }

  deleteSession(params: Params, client?: HubClient): Promise<Params> {
    return this.calls.deleteSession(params, client);
  }

  /** The gateway of the hub's default agent, for requests about no session. */
  defaultGateway(): Promise<Gateway> {
    return this.gatewayFor(this.options.defaultAgent);
  }

  get liveTurns(): number {
    return this.running.size;
  }

  // Cancels running turns (each ends within the agent's cancel grace), closes every agent,
  // then the ledger.
  async close(): Promise<void> {
    this.idle.stop();
    this.claims.takeovers.close();
    // Nothing queued starts once the hub stops: each is recorded as dropped and answered.
    await this.queue.clear(undefined, "dropped");
    await this.gateways.close();
    await this.options.ledger.close();
    this.logger.info("session hub closed");
  }
}
