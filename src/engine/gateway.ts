// The ACP methods an editor calls, composed of small parts (the agent slot, the session table,
// the editor channel, the ledger): every prompt and update recorded in the ledger before it
// reaches the editor, and sessions listed, loaded, resumed, closed and deleted from the ledger
// whatever the agent supports.
import type { Params } from "../protocol/raw.js";
import { initializeAnswer } from "../protocol/capabilities.js";
import { normalizeProtocolVersion } from "../protocol/version.js";
import { withDefaults } from "../shared/defaults.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import type { BudgetPort } from "./budget-port.js";
import { EditorChannel } from "./editor-channel.js";
import {
  announcingLedger,
  EngineEventHub,
  type EngineEvents,
} from "./events.js";
import {
  DEFAULT_GATEWAY_LIMITS,
  perMinute,
  RateWindow,
  type GatewayLimits,
} from "./limits.js";
import type { TurnGate } from "./turn-gate.js";
import { liveSession } from "./live.js";
import { AgentSlot, type GatewayParts } from "./parts.js";
import type {
  AgentPort,
  EditorPort,
  SessionCommandsPort,
  LedgerPort,
  SessionRecord,
} from "./ports.js";
import { forkSession } from "./fork.js";
import {
  forwardExtension,
  forwardExtensionNotification,
  forwardToAgent,
  forwardUnknown,
  forwardUnknownNotification,
} from "./forward.js";
import {
  sessionStatus,
  setSessionConfigOption,
  setSessionMode,
  setSessionModel,
  setSessionTitle,
} from "./session-controls.js";
import {
  detachAgentSession,
  endSession,
  listPage,
  openSession,
  loadAndReplay,
  markActive,
  requireRecord,
} from "./session-ops.js";
import { SettingsStore } from "./session-settings.js";
import { SessionTable } from "./session-table.js";
import { CloseDelays } from "./close-delays.js";
import { advertiseCommands } from "./session-commands.js";
import { promptHere, promptRoute, type PromptRoute } from "./prompt-route.js";

// How long after a turn's answer its chunks are merged. A client that reconnects with a cursor
// inside a merged run still reads only what came after it, so nothing needs a longer delay.
const COMPACT_AFTER_MS = 20;

export interface GatewayOptions {
  agentName: string;
  ledger: LedgerPort;
  /** Spawns and initializes the agent (called again after it dies). */
  connect: () => Promise<AgentPort>;
  limits?: Partial<GatewayLimits>;
  logger?: Logger;
  /** The editor side, when the caller builds it first (so the host can talk to the editor). */
  editor?: EditorChannel;
  /** Commands acphub runs itself in sessions (workflows), advertised next to the agent's. */
  commands?: SessionCommandsPort;
  /** Masks known secrets in an update's JSON text before it is stored and sent (by value). */
  mask?: (jsonText: string) => string;
  /** The agent is an acphub hub (`run --hub`, `chat --hub`): its session ids are the sessions'
   *  ids (one id everywhere), and a session it does not know is an error, never restored.
   *  `"replay"`: a session continued here is loaded from the hub with its history shown (chat). */
  agentIsHub?: boolean | "replay";
  /** The budgets a prompt must fit (limits.budget); none: no budget. */
  budget?: BudgetPort;
  /** How long after a turn's answer its chunks are compacted, in ms (default 20). */
  compactAfterMs?: number;
  /** The turn gate, when shared (a hub's); ignored when `editor` is given (its table's). */
  turns?: TurnGate;
}

export class Gateway {
  readonly limits: GatewayLimits;
  /** The editor side: requests and notifications from the agent go through it. */
  readonly editor: EditorChannel;
  private readonly parts: GatewayParts;
  private readonly sessionRate = new RateWindow();
  private initialized = false;
  /** Session commands being advertised in new sessions (after the response), by session. */
  private readonly advertising = new Map<string, Promise<void>>();
  private readonly closing = new CloseDelays();
  private readonly events = new EngineEventHub();

  constructor(options: GatewayOptions) {
    this.limits = withDefaults(DEFAULT_GATEWAY_LIMITS, options.limits);
    this.editor =
      options.editor ?? new EditorChannel(new SessionTable(options.turns));
    this.parts = {
      agentName: options.agentName,
      ledger: announcingLedger(options.ledger, this.events),
      logger: options.logger ?? silentLogger(),
      limits: this.limits,
      agents: new AgentSlot(options.connect),
      sessions: this.editor.sessions,
      editor: this.editor,
      settings: new SettingsStore(options.ledger),
      compactAfterMs: options.compactAfterMs ?? COMPACT_AFTER_MS,
      closing: this.closing,
      events: this.events,
      ...(options.commands ? { commands: options.commands } : {}),
      ...(options.mask ? { mask: options.mask } : {}),
      ...(options.agentIsHub ? { agentIsHub: options.agentIsHub } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
    };
  }

  /** Listens to the engine's events (turns starting and ending, sessions changing);
   *  the function returned stops listening. */
  observe(listener: EngineEvents): () => void {
    return this.events.add(listener);
  }

  attachEditor(editor: EditorPort): void {
    this.editor.attach(editor);
  }

  /** One agent process per gateway, spawned on first use and again after it dies. */
  agent(): Promise<AgentPort> {
    return this.parts.agents.get();
  }

  async initialize(params: Params): Promise<Params> {
    if (normalizeProtocolVersion(params["protocolVersion"]).normalized) {
      this.parts.logger.warn(
        { protocolVersion: params["protocolVersion"] },
        "editor sent an unsupported protocolVersion; using 1",
      );
    }
    this.editor.setCapabilities((params["clientCapabilities"] as Params) ?? {});
    const agent = await this.agent();
    this.initialized = true;
    return initializeAnswer(agent.initializeResponse, this.parts.agentName);
  }

  async newSession(params: Params, signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    perMinute(this.sessionRate, this.limits.sessionsPerMinute, "");
    const response = await openSession(this.parts, params, signal);
    this.advertiseCommands(
      String(response["sessionId"]),
      String(params["cwd"]),
    );
    return response;
  }

  // Tells the editor about acphub's own commands in a new session, after the response.
  private advertiseCommands(hubId: string, cwd: string): void {
    const pushed = advertiseCommands(this.parts, hubId, cwd);
    if (!pushed) return;
    this.advertising.set(hubId, pushed);
    void pushed.then(() => this.advertising.delete(hubId));
  }

  /** Resolves once what the session was sent so far (the commands advertised after
   *  session/new included) is stored and handed to the editor. */
  async settled(sessionId: string): Promise<void> {
    await this.advertising.get(sessionId);
    await this.parts.sessions.get(sessionId)?.relay.settled();
  }

  /** The one gate of this gateway's turns and cancels (a hub's, shared by its gateways). */
  get turns(): TurnGate {
    return this.parts.sessions.turns;
  }

  /** `author`: the hub user who sent the prompt (the ledger keeps it, replay shows it, their
   *  budget counts it). Registered for session/cancel before its first await, admitted (the
   *  session read once, the prompt measured once), then run holding the session's turn. */
  prompt(
    params: Params,
    signal: AbortSignal,
    author?: string,
  ): Promise<Params> {
    this.requireInit();
    return promptHere(this.parts, params, signal, author);
  }

  /** The prompt's path for a caller that admits it and claims its turn itself (the hub). */
  get route(): PromptRoute {
    return promptRoute(this.parts);
  }

  /** The session's modes, models and config options, as kept (session-settings.ts). */
  async sessionState(sessionId: string): Promise<Params> {
    return { ...(await this.parts.settings.get(sessionId)) };
  }

  /** session/set_mode, set_config_option, set_model: the agent switches, the state follows. */
  setMode(params: Params, signal?: AbortSignal): Promise<Params> {
    return setSessionMode(this.parts, params, signal);
  }

  setConfigOption(params: Params, signal?: AbortSignal): Promise<Params> {
    return setSessionConfigOption(this.parts, params, signal);
  }

  setModel(params: Params, signal?: AbortSignal): Promise<Params> {
    return setSessionModel(this.parts, params, signal);
  }

  /** session/fork for any agent (fork.ts); `onAgent` false: a ledger copy only, restored on
   *  first use (a hub forking another user's session in the forker's own agent process). */
  fork(params: Params, onAgent = true): Promise<Params> {
    return forkSession(this.parts, params, onAgent);
  }

  /** session/status and session/set_title, from acphub's own view (session-controls.ts). */
  status(params: Params): Promise<Params> {
    return sessionStatus(this.parts, params);
  }

  setTitle(params: Params, signal?: AbortSignal): Promise<Params> {
    return setSessionTitle(this.parts, params, signal);
  }

  cancel(params: Params): void {
    this.parts.sessions.cancel(String(params["sessionId"]));
  }

  listSessions(params: Params): Promise<Params> {
    this.requireInit();
    return listPage(this.parts, params);
  }

  // Answered from the ledger without waiting for the agent, so the request's signal has nothing
  // to stop; the background restoration is bounded by the agent's request timeout. The settings
  // answered are the record's (cached by `record`); the restoration reapplies them to the agent.
  async loadSession(params: Params, _signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = await loadAndReplay(this.parts, params["sessionId"], (id) =>
      this.record(id),
    );
    const live = this.parts.sessions.get(record.id);
    if (!live?.agent.alive)
      liveSession(this.parts, record).catch((error: unknown) => {
        // Closing while the restoration runs is not worth a warning.
        if (!isHubError(error, "CLOSED"))
          this.parts.logger.warn(
            { err: error, sessionId: record.id },
            "restoring the session failed; the next prompt tries again",
          );
      });
    return this.sessionState(record.id);
  }

  async resumeSession(params: Params, signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = await this.record(params["sessionId"]);
    await liveSession(this.parts, record, signal);
    await markActive(this.parts, record);
    return this.sessionState(record.id);
  }

  async closeSession(params: Params, signal?: AbortSignal): Promise<Params> {
    const record = await this.record(params["sessionId"]);
    await endSession(this.parts, record, "close", signal);
    return {};
  }

  async deleteSession(params: Params, signal?: AbortSignal): Promise<Params> {
    const record = await this.record(params["sessionId"]);
    await endSession(this.parts, record, "delete", signal);
    return {};
  }

  /** The sessions with an agent session attached now. */
  liveSessionIds(): string[] {
    return this.parts.sessions.ids();
  }

  /** Lets go of a session nobody uses: closed on its agent (or forgotten here when the agent
   *  cannot close it); the next use restores it from the ledger. False while a turn runs. */
  async release(sessionId: string): Promise<boolean> {
    if (this.turns.claimOf(sessionId)) return false;
    const live = this.parts.sessions.remove(sessionId);
    if (!live) return false;
    this.parts.settings.forget(sessionId);
    await detachAgentSession(live).catch((error: unknown) =>
      this.parts.logger.warn({ err: error, sessionId }, "release failed"),
    );
    return true;
  }

  /** A method the table marks forwarded (logout, providers/*): to the agent if it offers it. */
  forward(method: string, params: Params, signal?: AbortSignal) {
    return forwardToAgent(this.parts, method, params, signal);
  }

  /** A method acphub does not know: to the agent when it names a known session. */
  forwardUnknown(method: string, params: unknown, signal?: AbortSignal) {
    return forwardUnknown(this.parts, method, params, signal);
  }

  forwardUnknownNotification(method: string, params: unknown): void {
    forwardUnknownNotification(this.parts, method, params);
  }

  /** An editor's `_`-prefixed request or notification, relayed with the session id mapped. */
  forwardExtension(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return forwardExtension(this.parts, method, params, signal);
  }

  forwardExtensionNotification(method: string, params: unknown): Promise<void> {
    return forwardExtensionNotification(this.parts, method, params);
  }

  async close(): Promise<void> {
    this.closing.close();
    const live = this.parts.sessions.values();
    for (const entry of live) entry.turn?.cancel();
    await Promise.allSettled(live.map((entry) => entry.turnDone));
    await Promise.allSettled(live.map((entry) => entry.compacting));
    await this.parts.agents.close();
    await this.parts.ledger.close();
  }

  private requireInit(): void {
    if (!this.initialized) throw new HubError("USAGE", "send initialize first");
  }

  private record(id: unknown): Promise<SessionRecord> {
    return this.parts.settings.withRecord(() => requireRecord(this.parts, id));
  }
}
