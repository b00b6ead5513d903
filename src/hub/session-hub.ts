// The hub's shared core for many editor connections at once: one gateway per agent (sharing
// the ledger), sessions any connection can attach to (replay, then live, stitched by sequence
// number), the prompting connection tracked for permission requests, and prompts that carry
// an idempotency key answered from the ledger when they were already run.
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import type { Gateway } from "../engine/gateway.js";
import { ledgerWith, type EngineEvents } from "../engine/events.js";
import { Attachments, type HubClient } from "./attachments.js";
import { fanOutEditor, type FanOutObserver } from "./fan-out.js";
import { afterSeqOf, agentOf } from "./meta.js";
import { Note } from "./frames.js";
import {
  noSession,
  permissionDetail,
  SessionAccess,
  type AccessStore,
} from "./access.js";
import { askingEditor, HubWatch } from "./watch.js";
import { DEFAULT_IDLE_SESSION_MS, IdleSessions } from "./idle-sessions.js";
import { checkSessionFolder } from "./session-folder.js";
import type { EditorPort, LedgerPort, SessionRecord } from "../engine/ports.js";
import {
  catchUpNotes,
  idempotencyKeyOf,
  lastSeq,
  recordedTurn,
  updatesAfter,
} from "./turn-records.js";
import type { Claim, SessionRunner } from "./runner.js";
import type { HubUser } from "../contracts/users.js";

type Params = Record<string, unknown>;

export interface SessionHubObserver extends FanOutObserver {
  turnEnded?(stopReason: string): void;
}

export interface SessionHubOptions {
  ledger: LedgerPort;
  defaultAgent: string;
  /** A gateway over one agent; the hub initializes it and attaches its fan-out editor. */
  createGateway: (
    agentName: string,
    ledger: LedgerPort,
  ) => Gateway | Promise<Gateway>;
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
  /** Decides which process runs a session's agent (a cluster's lease); none: this one always. */
  runner?: SessionRunner;
}

export class SessionHub {
  readonly attachments = new Attachments();
  readonly watch = new HubWatch(this.attachments);
  private readonly gateways = new Map<string, Promise<Gateway>>();
  private readonly editor: EditorPort;
  private readonly shared: LedgerPort;
  /** Turns running now, by session, with the idempotency key that started them. */
  private readonly running = new Map<
    string,
    { key?: string; done: Promise<Params>; gateway: Gateway }
  >();
  private readonly logger: Logger;
  /** Prompts from their arrival to their answer, by session, for session/cancel. */
  private readonly arriving = new Map<string, Set<AbortController>>();
  /** The gateways created so far, for the idle sweep. */
  private readonly ready = new Set<Gateway>();
  private readonly idle: IdleSessions;
  readonly access: SessionAccess;
  /** The name recorded as a prompt's author (issue 22); set by serve, else none is recorded. */
  authorOf: (user: HubUser | undefined) => string | undefined = () => undefined;
  /** What the hub does with its gateways' events: the watch and the metrics hear of them. */
  private readonly engineEvents: EngineEvents = {
    turnStarted: (e) =>
      this.watch.prompted(e.sessionId, e.promptSeq, e.prompt, e.author),
    turnEnded: (e) => {
      const { sessionId, ...end } = e;
      this.watch.ended(sessionId, end);
      if (e.stopReason) this.options.observer?.turnEnded?.(e.stopReason);
    },
    sessionChanged: (id) => {
      void this.shared
        .getSession(id)
        .then((record) => this.watch.changed(id, record?.title))
        .catch(() => this.watch.changed(id));
    },
  };

  constructor(private readonly options: SessionHubOptions) {
    this.logger = options.logger ?? silentLogger();
    this.access = new SessionAccess(options.access);
    this.watch.mayTell = (client, id) => this.access.mayTell(client.user, id);
    this.editor = askingEditor(
      fanOutEditor(
        this.attachments,
        {
          updateRelayed: (n) => options.observer?.updateRelayed?.(n),
          permissionDecided: (o) => options.observer?.permissionDecided?.(o),
          permissionAnswered: (client, request, answer) =>
            this.access.note(
              client.user,
              "permission.answer",
              String(request["sessionId"]),
              permissionDetail(request, answer),
            ),
        },
        options.answerGraceMs,
      ),
      this.watch,
    );
    // Every gateway shares the ledger; the hub closes it once, after them all.
    this.shared = ledgerWith(options.ledger, {
      close: () => Promise.resolve(),
    });
    this.idle = new IdleSessions(
      options.idleSessionMs ?? DEFAULT_IDLE_SESSION_MS,
      () => this.ready,
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

  // The gateway for an agent, created and initialized once however many ask at once.
  gatewayFor(agentName: string): Promise<Gateway> {
    let gateway = this.gateways.get(agentName);
    if (!gateway) {
      gateway = this.createGateway(agentName);
      this.gateways.set(agentName, gateway);
      gateway.catch(() => this.gateways.delete(agentName));
    }
    return gateway;
  }

  private async createGateway(agentName: string): Promise<Gateway> {
    const created = await this.options.createGateway(agentName, this.shared);
    created.observe(this.engineEvents);
    created.attachEditor(this.editor);
    await created.initialize({ protocolVersion: 1, clientCapabilities: {} });
    this.ready.add(created);
    return created;
  }

  addClient(client: HubClient): void {
    this.attachments.addClient(client);
  }

  // A connection left: detach it everywhere, and cancel its turns if configured to.
  removeClient(client: HubClient): void {
    for (const [sessionId] of this.running) {
      if (
        this.options.cancelOnDisconnect &&
        this.attachments.owner(sessionId) === client
      )
        void this.cancel({ sessionId });
    }
    this.attachments.detach(client);
  }

  // A session by id; with a client, only one its user may see (else exactly "no session").
  async record(id: unknown, client?: HubClient): Promise<SessionRecord> {
    const record =
      typeof id === "string" ? await this.shared.getSession(id) : undefined;
    if (!record) throw noSession(id);
    if (client) await this.access.mustSee(client.user, record.id);
    return record;
  }

  // Refuses a client whose user may only watch the session (or not see it at all).
  async mustDrive(client: HubClient, sessionId: unknown): Promise<void> {
    const record = await this.record(sessionId, client);
    await this.access.mustDrive(client.user, record.id);
  }

  // A session this connection has opened or loaded; others must be loaded first.
  async attachedRecord(client: HubClient, id: unknown): Promise<SessionRecord> {
    const record = await this.record(id, client);
    if (!this.attachments.isAttached(record.id, client))
      throw new HubError(
        "SESSION_NOT_FOUND",
        `session ${record.id} is not open on this connection: session/load or session/resume it first`,
      );
    return record;
  }

  /**
   * Sends the client what it missed after `afterSeq`, then what arrived live meanwhile: it is
   * attached at once with live updates held back, read from the ledger, and released.
   */
  async catchUp(
    client: HubClient,
    sessionId: string,
    afterSeq: number,
  ): Promise<void> {
    this.attachments.attach(sessionId, client, afterSeq, true);
    try {
      const stored = await this.shared.read(sessionId, { afterSeq });
      const damaged = (seq: number) =>
        this.logger.warn(
          { sessionId, seq },
          "ledger: damaged event row skipped",
        );
      // Written in one go: the client's socket takes them in one system call (coalesced).
      for (const note of catchUpNotes(sessionId, stored, afterSeq, damaged))
        client.notify(note, true);
      this.attachments.release(sessionId, client, lastSeq(stored, afterSeq));
    } catch (error) {
      this.attachments.detach(client, sessionId);
      throw error;
    }
  }

  async newSession(client: HubClient, params: Params): Promise<Params> {
    this.access.mayCreate(client.user);
    checkSessionFolder(params["cwd"]);
    const agent = agentOf(params["_meta"]) ?? this.options.defaultAgent;
    const gateway = await this.gatewayFor(agent);
    const result = await gateway.newSession(params);
    const id = String(result["sessionId"]);
    await this.access.own(client.user, id);
    await this.options.runner?.claim(id, false);
    await this.catchUp(client, id, 0);
    this.options.runner?.attached(id);
    return result;
  }

  async loadSession(client: HubClient, params: Params): Promise<Params> {
    const record = await this.record(params["sessionId"], client);
    await this.markStanding(client, record.id);
    const gateway = await this.gatewayFor(record.agent);
    if (record.incomplete)
      client.notify(
        new Note("session/update", {
          sessionId: record.id,
          update: {
            sessionUpdate: "agent_message_chunk",
            content: {
              type: "text",
              text: "[acphub] older history of this session was trimmed (ledger caps); the replay starts later\n",
            },
          },
        }),
      );
    await this.catchUp(client, record.id, 0);
    return this.restoreIfHeld(record.id, gateway);
  }

  // Restores the agent when this process may run the session; else the session is only watched
  // here (its runner elsewhere streams through the ledger) and answered from the ledger.
  private async restoreIfHeld(
    sessionId: string,
    gateway: Gateway,
  ): Promise<Params> {
    const runner = this.options.runner;
    if (!runner) return gateway.resumeSession({ sessionId });
    runner.attached(sessionId);
    const claim = await runner.claim(sessionId, false);
    if (!claim.held) return gateway.sessionState(sessionId);
    if (claim.interrupted) await this.endInterrupted(sessionId);
    return gateway.resumeSession({ sessionId });
  }

  async resumeSession(client: HubClient, params: Params): Promise<Params> {
    const record = await this.record(params["sessionId"], client);
    await this.markStanding(client, record.id);
    const gateway = await this.gatewayFor(record.agent);
    const after = afterSeqOf(params["_meta"]);
    // Without a cursor the client has seen nothing: what is relayed from now on is new to it.
    if (after !== undefined) await this.catchUp(client, record.id, after);
    else this.attachments.attach(record.id, client);
    return this.restoreIfHeld(record.id, gateway);
  }

  /** What a client missed: the updates after its cursor, and how the last turn stands. */
  async replay(client: HubClient, params: Params): Promise<Params> {
    const record = await this.attachedRecord(client, params["sessionId"]);
    const afterSeq = Number(params["afterSeq"] ?? 0);
    const events = await this.shared.events(record.id, { afterSeq });
    return {
      updates: updatesAfter(record.id, events, afterSeq).map((i) => i.params),
      lastSeq: lastSeq(events, afterSeq),
      running: this.running.has(record.id),
    };
  }

  // "Is a turn running → who owns it → run the prompt" without an await in between, so a
  // refused prompt changes nothing: not the owner, the ledger, the title or the idempotency
  // record (the engine claims the turn before it records the prompt, too).
  // Registers the prompt for session/cancel before its first await (a cancel that follows it
  // on the wire finds it while its checks still run), then runs it.
  async prompt(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
  ): Promise<Params> {
    const arrival = new AbortController();
    const id = String(params["sessionId"]);
    const set = this.arriving.get(id) ?? new Set<AbortController>();
    this.arriving.set(id, set.add(arrival));
    try {
      return await this.promptChecked(
        client,
        params,
        AbortSignal.any([signal, arrival.signal]),
      );
    } finally {
      set.delete(arrival);
      if (set.size === 0 && this.arriving.get(id) === set)
        this.arriving.delete(id);
    }
  }

  private async promptChecked(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
  ): Promise<Params> {
    const record = await this.attachedRecord(client, params["sessionId"]);
    await this.access.mustDrive(client.user, record.id);
    const key = idempotencyKeyOf(params["_meta"]);
    const again = key ? await this.recorded(record.id, key) : undefined;
    if (again) return again;
    const gateway = await this.gatewayFor(record.agent);
    // Claimed before the check below, so that nothing awaits between it and running.set.
    const claimed = await this.claimTurn(record.id);
    const live = this.running.get(record.id);
    if (live && key !== undefined && live.key === key) return live.done;
    if (live)
      throw new HubError(
        "PROMPT_IN_FLIGHT",
        `session ${record.id} already has a turn running`,
      );
    this.attachments.setOwner(record.id, client);
    const done = gateway.prompt(params, signal, this.authorOf(client.user));
    this.running.set(record.id, { key, done, gateway });
    try {
      return await done;
    } finally {
      // The answer goes out once the lease says idle: another node may take the session next.
      if (claimed)
        await this.options.runner
          ?.turnEnded(record.id)
          .catch((error: unknown) =>
            this.logger.warn({ err: error }, "cluster: turn end not recorded"),
          );
      this.running.delete(record.id);
      if (this.attachments.owner(record.id) === client)
        this.attachments.setOwner(record.id, undefined);
    }
  }

  // The answer to a prompt whose idempotency key the ledger has seen, without running it again.
  private async recorded(
    sessionId: string,
    key: string,
  ): Promise<Params | undefined> {
    const live = this.running.get(sessionId);
    if (live?.key === key) return live.done;
    const turn = recordedTurn(await this.shared.events(sessionId), key);
    if (!turn) return undefined;
    if (turn.error !== undefined)
      throw new HubError(
        "AGENT_ERROR",
        `the recorded turn failed: ${turn.error}`,
      );
    const interrupted = turn.stopReason === undefined;
    if (interrupted) await this.endInterrupted(sessionId);
    return {
      stopReason: turn.stopReason ?? "cancelled",
      _meta: {
        acphub: { replayed: true, promptSeq: turn.promptSeq, interrupted },
      },
    };
  }

  // Takes the session's lease for a turn (from an idle or dead runner); true when this call took
  // it. A turn already running here is left to the gateway's busy rule.
  private async claimTurn(sessionId: string): Promise<boolean> {
    const runner = this.options.runner;
    if (!runner || this.running.has(sessionId)) return false;
    const claim: Claim = await runner.claim(sessionId, true);
    if (!claim.held)
      throw new HubError(
        "PROMPT_IN_FLIGHT",
        `session ${sessionId} is running a turn on node ${claim.holder}: wait for it to end, or cancel it`,
      );
    if (claim.interrupted) await this.endInterrupted(sessionId);
    return true;
  }

  /**
   * This process may no longer run the session (its lease lapsed unrenewed, or another node took
   * it): a turn running here is cancelled without asking the ledger (it may be unreachable), and
   * once it ended the agent's live session is dropped unless `stillHeld` says it is ours again.
   */
  async giveUp(sessionId: string, stillHeld: () => boolean): Promise<void> {
    const live = this.running.get(sessionId);
    if (!live) return stillHeld() ? undefined : this.release(sessionId);
    live.gateway.cancel({ sessionId });
    await live.done.catch(() => undefined);
    const next = this.running.get(sessionId);
    if (stillHeld() || (next && next !== live)) return;
    await live.gateway.release(sessionId);
  }

  /** Forgets the agent's live session here: another process runs it now (cluster handover). */
  async release(sessionId: string): Promise<void> {
    if (this.running.has(sessionId)) return; // a turn here ends first (a database outage)
    const record = await this.shared.getSession(sessionId);
    const gateway = record && this.gateways.get(record.agent);
    if (gateway) await (await gateway).release(sessionId);
  }

  // A turn the hub's restart killed: tell the session why, and record its end as cancelled.
  private async endInterrupted(sessionId: string): Promise<void> {
    const update = {
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "text",
        text: "[acphub] the hub stopped while this turn ran; it ended as cancelled\n",
      },
    };
    const seq = await this.shared.append(sessionId, "update", { update });
    await this.editor.notify("session/update", { sessionId, update }, { seq });
    const end = { stopReason: "cancelled", interrupted: true };
    await this.shared.append(sessionId, "turn_end", end);
    this.watch.ended(sessionId, end);
  }

  async cancel(params: Params, client?: HubClient): Promise<void> {
    const record = await this.shared.getSession(String(params["sessionId"]));
    if (!record) return;
    if (client) await this.access.mustDrive(client.user, record.id);
    for (const arrival of this.arriving.get(record.id) ?? []) arrival.abort();
    (await this.gatewayFor(record.agent)).cancel(params);
    if (!this.running.has(record.id))
      await this.options.runner?.relayCancel(record.id);
  }

  async listSessions(params: Params, client?: HubClient): Promise<Params> {
    const list = (p: Params) =>
      this.gatewayFor(this.options.defaultAgent).then((g) => g.listSessions(p));
    const visible = await this.access.visible(client?.user);
    return visible === "all"
      ? list(params)
      : listVisible(list, params, visible);
  }

  // Notes a client that may only watch a session: permission questions never go to it.
  private async markStanding(
    client: HubClient,
    sessionId: string,
  ): Promise<void> {
    const standing = await this.access.standing(client.user, sessionId);
    this.attachments.setWatchOnly(sessionId, client, standing === "viewer");
  }

  // Closing a session only detaches this connection while others still watch it.
  async closeSession(client: HubClient, params: Params): Promise<Params> {
    const record = await this.record(params["sessionId"], client);
    this.attachments.detach(client, record.id);
    if (this.attachments.attached(record.id).length > 0) return {};
    return (await this.gatewayFor(record.agent)).closeSession(params);
  }

  async deleteSession(params: Params, client?: HubClient): Promise<Params> {
    const record = await this.record(params["sessionId"], client);
    if (client) await this.access.mustOwn(client.user, record.id);
    const result = await (
      await this.gatewayFor(record.agent)
    ).deleteSession(params);
    this.attachments.forgetSession(record.id);
    return result;
  }

  /** The gateway that owns a session, for requests relayed to its agent. */
  async gatewayOf(client: HubClient, sessionId: unknown): Promise<Gateway> {
    if (sessionId === undefined)
      return this.gatewayFor(this.options.defaultAgent);
    const record = await this.attachedRecord(client, sessionId);
    // In a cluster the session comes here first when idle (a mode or setting is the agent's).
    if (await this.claimTurn(record.id))
      await this.options.runner?.turnEnded(record.id);
    return this.gatewayFor(record.agent);
  }

  get liveTurns(): number {
    return this.running.size;
  }

  // Cancels running turns (each ends within the agent's cancel grace), closes every agent,
  // then the ledger.
  async close(): Promise<void> {
    this.idle.stop();
    const gateways = await Promise.allSettled(this.gateways.values());
    await Promise.allSettled(
      gateways.map((g) =>
        g.status === "fulfilled" ? g.value.close() : Promise.resolve(),
      ),
    );
    await this.options.ledger.close();
    this.logger.info("session hub closed");
  }
}

/** Pages read at most to fill one filtered page (each is the ledger's page size). */
const MAX_LIST_PAGES = 50;

// session/list of only the visible sessions: ledger pages read until one has some (bounded).
async function listVisible(
  list: (p: Params) => Promise<Params>,
  params: Params,
  visible: Set<string>,
): Promise<Params> {
  let cursor = params["cursor"];
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await list({ ...params, cursor });
    const sessions = (result["sessions"] as Params[] | undefined) ?? [];
    const shown = sessions.filter((x) => visible.has(String(x["sessionId"])));
    cursor = result["nextCursor"];
    if (shown.length > 0 || cursor === undefined)
      return { ...result, sessions: shown };
  }
  return {
    sessions: [],
    ...(cursor === undefined ? {} : { nextCursor: cursor }),
  };
}
