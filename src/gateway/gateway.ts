// The ACP methods an editor calls, composed of small parts (the agent slot, the session table,
// the editor channel, the ledger): every prompt and update recorded in the ledger before it
// reaches the editor, and sessions listed, loaded, resumed, closed and deleted from the ledger
// whatever the agent supports.
import type { Params } from "../protocol/raw.js";
import { normalizeProtocolVersion } from "../protocol/version.js";
import { withDefaults } from "../shared/defaults.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { AgentSlot } from "./agent-slot.js";
import { EditorChannel } from "./editor-channel.js";
import { initializeAnswer } from "./initialize.js";
import {
  DEFAULT_GATEWAY_LIMITS,
  FixedWindowLimiter,
  type GatewayLimits,
} from "./limits.js";
import { liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import type {
  AgentPort,
  EditorPort,
  HubCommandsPort,
  LedgerPort,
  SessionRecord,
} from "./ports.js";
import {
  endSession,
  listPage,
  openSession,
  replayHistory,
  stateOf,
} from "./session-ops.js";
import { SessionTable } from "./session-table.js";
import { promptLive, promptOf } from "./turns.js";
import { commandOf, runHubCommand } from "./hub-commands.js";

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
  commands?: HubCommandsPort;
}

export class Gateway {
  readonly limits: GatewayLimits;
  /** The editor side: requests and notifications from the agent go through it. */
  readonly editor: EditorChannel;
  private readonly parts: GatewayParts;
  private readonly limiter: FixedWindowLimiter;
  private initialized = false;
  /** Hub commands (workflow runs) in progress, by session, for session/cancel. */
  private readonly commandRuns = new Map<string, AbortController>();

  constructor(options: GatewayOptions) {
    this.limits = withDefaults(DEFAULT_GATEWAY_LIMITS, options.limits);
    this.editor = options.editor ?? new EditorChannel(new SessionTable());
    this.parts = {
      agentName: options.agentName,
      ledger: options.ledger,
      logger: options.logger ?? silentLogger(),
      limits: this.limits,
      agents: new AgentSlot(options.connect),
      sessions: this.editor.sessions,
      editor: this.editor,
      ...(options.commands ? { commands: options.commands } : {}),
    };
    this.limiter = new FixedWindowLimiter(
      this.limits.sessionsPerMinute,
      60_000,
    );
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

  async authenticate(params: Params, signal?: AbortSignal): Promise<Params> {
    return (await this.agent()).request("authenticate", params, signal);
  }

  async newSession(params: Params, signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    if (!this.limiter.take()) {
      throw new HubError(
        "LIMIT_EXCEEDED",
        `too many new sessions: the limit is ${this.limits.sessionsPerMinute} per minute`,
        { retryable: true },
      );
    }
    const response = await openSession(this.parts, params, signal);
    this.advertiseCommands(
      String(response["sessionId"]),
      String(params["cwd"]),
    );
    return response;
  }

  // Tells the editor about acphub's own commands in a new session, after the response (through
  // the session's relay, which adds them to an available_commands_update).
  private advertiseCommands(hubId: string, cwd: string): void {
    if (!this.parts.commands?.list(cwd).length) return;
    const relay = this.parts.sessions.get(hubId)?.relay;
    setImmediate(() =>
      relay?.pushOutside({
        type: "session_update",
        sessionId: hubId,
        update: {
          sessionUpdate: "available_commands_update",
          availableCommands: [],
        },
      }),
    );
  }

  async prompt(params: Params, signal: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = await this.record(params["sessionId"]);
    const prompt = promptOf(params, this.limits.maxPromptBytes);
    const command = commandOf(this.parts.commands, record.cwd, prompt);
    if (command && this.parts.commands)
      return runHubCommand(
        this.parts,
        this.parts.commands,
        record,
        prompt,
        command,
        signal,
        this.commandRuns,
      );
    const meta = params["_meta"] as Params | undefined;
    const scope = this.parts.sessions.cancelScope(record.id, signal);
    try {
      const live = await liveSession(this.parts, record);
      return await promptLive(
        this.parts,
        record,
        live,
        prompt,
        meta,
        scope.signal,
      );
    } finally {
      scope.release();
    }
  }

  /** The session's modes and config options as the agent last described them. */
  sessionState(sessionId: string): Params {
    const live = this.parts.sessions.get(sessionId);
    return live ? stateOf(live.session) : {};
  }

  async setMode(
    sessionId: string,
    modeId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const record = await this.record(sessionId);
    const live = await liveSession(this.parts, record, signal);
    await live.session.setMode(modeId, signal);
  }

  async setConfigOption(
    sessionId: string,
    configId: string,
    value: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const record = await this.record(sessionId);
    const live = await liveSession(this.parts, record, signal);
    await live.session.setConfigOption(configId, value, signal);
  }

  cancel(params: Params): void {
    this.commandRuns.get(String(params["sessionId"]))?.abort();
    this.parts.sessions.cancel(String(params["sessionId"]));
  }

  listSessions(params: Params): Promise<Params> {
    this.requireInit();
    return listPage(this.parts, params);
  }

  // Answered from the ledger without waiting for the agent, so the request's signal has nothing
  // to stop; the background restoration is bounded by the agent's request timeout.
  async loadSession(params: Params, _signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = await this.record(params["sessionId"]);
    await Promise.all([
      this.parts.ledger.updateSession(record.id, { state: "active" }),
      replayHistory(this.parts, record),
    ]);
    // Answered from the ledger: the agent is restored meanwhile, and the next prompt waits.
    const live = this.parts.sessions.get(record.id);
    if (live?.agent.alive) return { ...stateOf(live.session) };
    liveSession(this.parts, record).catch((error: unknown) => {
      // Closing while the restoration runs is not worth a warning.
      if (!isHubError(error, "CLOSED"))
        this.parts.logger.warn(
          { err: error, sessionId: record.id },
          "restoring the session failed; the next prompt tries again",
        );
    });
    return {};
  }

  async resumeSession(params: Params, signal?: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = await this.record(params["sessionId"]);
    const live = await liveSession(this.parts, record, signal);
    await this.parts.ledger.updateSession(record.id, { state: "active" });
    return { ...stateOf(live.session) };
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

  // Session-scoped requests relayed to the agent with its own session id (set_mode, …).
  async forwardSessionRequest(
    method: string,
    params: Params,
    signal: AbortSignal,
  ): Promise<unknown> {
    const live = await liveSession(
      this.parts,
      await this.record(params["sessionId"]),
      signal,
    );
    return live.agent.request(
      method,
      { ...params, sessionId: live.session.id },
      signal,
    );
  }

  /** An editor's `_`-prefixed request or notification, relayed with the session id mapped. */
  async forwardExtension(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const agent = await this.agent();
    return agent.request(
      method,
      this.parts.sessions.toAgentIds(params),
      signal,
    );
  }

  async forwardExtensionNotification(
    method: string,
    params: unknown,
  ): Promise<void> {
    (await this.agent()).notify(method, this.parts.sessions.toAgentIds(params));
  }

  async close(): Promise<void> {
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

  private async record(id: unknown): Promise<SessionRecord> {
    const record =
      typeof id === "string"
        ? await this.parts.ledger.getSession(id)
        : undefined;
    if (!record)
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${JSON.stringify(id)}`,
      );
    return record;
  }
}
