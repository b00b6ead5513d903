// The core between editors and agents: acphub's own session ids mapped to agent sessions,
// every prompt and update recorded in the ledger before it reaches the editor, and sessions
// listed, loaded, resumed, closed and deleted from the ledger whatever the agent supports.
import { randomUUID } from "node:crypto";
import { normalizeProtocolVersion } from "../protocol/version.js";
import { withDefaults } from "../shared/defaults.js";
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import { primingBlock, replayItems, titleFromPrompt } from "./history.js";
import {
  checkPromptSize,
  DEFAULT_GATEWAY_LIMITS,
  FixedWindowLimiter,
  type GatewayLimits,
} from "./limits.js";
import type {
  AgentPort,
  AgentSessionPort,
  EditorPort,
  GatewayEvent,
  LedgerPort,
  SessionRecord,
  TurnPort,
} from "./ports.js";
import { relayEvent, tellEditor, type RelayContext } from "./relay.js";
import { openParams, restoreNotice, restoreSession } from "./restore.js";

export interface GatewayOptions {
  agentName: string;
  ledger: LedgerPort;
  /** Spawns and initializes the agent (called again after it dies). */
  connect: () => Promise<AgentPort>;
  limits?: Partial<GatewayLimits>;
  logger?: Logger;
}

interface Runtime {
  agent: AgentPort;
  session: AgentSessionPort;
  needsPriming: boolean;
  turn?: TurnPort;
  turnDone?: Promise<unknown>;
  unsubscribe: () => void;
}

type Params = Record<string, unknown>;

export class Gateway {
  readonly limits: GatewayLimits;
  private readonly logger: Logger;
  private readonly ledger: LedgerPort;
  private readonly limiter: FixedWindowLimiter;
  private readonly runtimes = new Map<string, Runtime>();
  private agentPromise: Promise<AgentPort> | undefined;
  private editor: EditorPort | undefined;
  private clientCapabilities: Params = {};
  private initialized = false;

  constructor(private readonly options: GatewayOptions) {
    this.ledger = options.ledger;
    this.limits = withDefaults(DEFAULT_GATEWAY_LIMITS, options.limits);
    this.logger = options.logger ?? silentLogger();
    this.limiter = new FixedWindowLimiter(
      this.limits.sessionsPerMinute,
      60_000,
    );
  }

  attachEditor(editor: EditorPort): void {
    this.editor = editor;
  }

  private get relay(): RelayContext {
    return {
      ledger: this.ledger,
      editor: () => this.editor,
      logger: this.logger,
    };
  }

  /** The editor's capabilities from `initialize`, so the host knows what to forward. */
  get editorCapabilities(): Params {
    return this.clientCapabilities;
  }

  // One agent process per gateway, spawned on first use and again after it dies.
  agent(): Promise<AgentPort> {
    if (!this.agentPromise) {
      const promise = this.options.connect();
      this.agentPromise = promise;
      promise.catch(() => {
        if (this.agentPromise === promise) this.agentPromise = undefined;
      });
    }
    return this.agentPromise.then((agent) => {
      if (agent.alive) return agent;
      this.agentPromise = undefined;
      return this.agent();
    });
  }

  async initialize(params: Params): Promise<Params> {
    const { normalized } = normalizeProtocolVersion(params["protocolVersion"]);
    if (normalized) {
      this.logger.warn(
        { protocolVersion: params["protocolVersion"] },
        "editor sent an unsupported protocolVersion; using 1",
      );
    }
    this.clientCapabilities = (params["clientCapabilities"] as Params) ?? {};
    const agent = await this.agent();
    this.initialized = true;
    const init = agent.initializeResponse ?? {};
    const caps = (init["agentCapabilities"] as Params) ?? {};
    const info =
      (init["agentInfo"] as { name?: string; title?: string } | undefined) ??
      {};
    return {
      protocolVersion: 1,
      agentCapabilities: {
        ...caps,
        loadSession: true,
        sessionCapabilities: {
          ...(caps["sessionCapabilities"] as Params),
          list: {},
          resume: {},
          close: {},
          delete: {},
        },
      },
      authMethods: init["authMethods"] ?? [],
      agentInfo: {
        name: "acphub",
        title: `acphub → ${info.title ?? info.name ?? this.options.agentName}`,
        version: ACPHUB_VERSION,
      },
      ...(init["_meta"] ? { _meta: init["_meta"] } : {}),
    };
  }

  private requireInit(): void {
    if (!this.initialized) throw new HubError("USAGE", "send initialize first");
  }

  private record(id: unknown): SessionRecord {
    const record =
      typeof id === "string" ? this.ledger.getSession(id) : undefined;
    if (!record)
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${JSON.stringify(id)}`,
      );
    return record;
  }

  async authenticate(params: Params): Promise<Params> {
    return (await this.agent()).request("authenticate", params);
  }

  async newSession(params: Params): Promise<Params> {
    this.requireInit();
    if (!this.limiter.take()) {
      throw new HubError(
        "LIMIT_EXCEEDED",
        `too many new sessions: the limit is ${this.limits.sessionsPerMinute} per minute`,
        { retryable: true },
      );
    }
    const agent = await this.agent();
    const { cwd, mcpServers, additionalDirectories, _meta } = params as {
      cwd: string;
      mcpServers?: unknown[];
      additionalDirectories?: string[];
      _meta?: Params;
    };
    const session = await agent.newSession({
      cwd,
      mcpServers: mcpServers ?? [],
      additionalDirectories,
      meta: _meta,
    });
    const id = `hub-${randomUUID()}`;
    const now = Date.now();
    const request = {
      mcpServers: mcpServers ?? [],
      ...(additionalDirectories ? { additionalDirectories } : {}),
      ...(_meta ? { _meta } : {}),
    };
    this.ledger.createSession({
      id,
      agent: this.options.agentName,
      cwd,
      title: null,
      createdAt: now,
      updatedAt: now,
      state: "active",
      agentSessionId: session.id,
      request,
    });
    this.attach(id, agent, session, false);
    return { ...session.state, sessionId: id };
  }

  private attach(
    hubId: string,
    agent: AgentPort,
    session: AgentSessionPort,
    needsPriming: boolean,
  ): Runtime {
    this.runtimes.get(hubId)?.unsubscribe();
    const unsubscribe = session.onEvent((event: never) => {
      void relayEvent(this.relay, hubId, event as GatewayEvent).catch(
        (error: unknown) => this.logger.warn({ err: error }, "relay failed"),
      );
    });
    const runtime: Runtime = { agent, session, needsPriming, unsubscribe };
    this.runtimes.set(hubId, runtime);
    return runtime;
  }

  // The live agent session behind a hub session, restoring it onto the agent when needed.
  private async live(
    record: SessionRecord,
  ): Promise<{ runtime: Runtime; mode: string }> {
    const existing = this.runtimes.get(record.id);
    if (existing?.agent.alive) return { runtime: existing, mode: "live" };
    const agent = await this.agent();
    const { session, mode } = await restoreSession(agent, record, this.logger);
    if (session.id !== record.agentSessionId)
      this.ledger.updateSession(record.id, { agentSessionId: session.id });
    this.ledger.append(record.id, "restore", {
      mode,
      agentSessionId: session.id,
    });
    const runtime = this.attach(record.id, agent, session, mode === "primed");
    const notice = restoreNotice(mode, this.options.agentName);
    if (notice) await tellEditor(this.editor, record.id, notice, this.notices);
    return { runtime, mode };
  }

  private get notices(): boolean {
    const session = this.clientCapabilities["session"] as
      { notices?: unknown } | undefined;
    return session?.notices !== undefined && session.notices !== null;
  }

  async prompt(params: Params, signal: AbortSignal): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    const prompt = params["prompt"];
    if (!Array.isArray(prompt))
      throw new HubError("USAGE", "prompt must be an array of content blocks");
    checkPromptSize(prompt, this.limits.maxPromptBytes);
    const { runtime } = await this.live(record);
    if (runtime.turn) {
      if (this.limits.busyPrompt === "reject")
        throw new HubError(
          "PROMPT_IN_FLIGHT",
          `session ${record.id} already has a turn running`,
        );
      runtime.turn.cancel();
      await runtime.turnDone;
    }
    const meta = params["_meta"] as Params | undefined;
    this.ledger.append(record.id, "prompt", {
      prompt,
      ...(meta ? { meta } : {}),
    });
    if (record.title === null)
      this.ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
    const blocks = runtime.needsPriming
      ? [primingBlock(this.ledger.events(record.id).slice(0, -1)), ...prompt]
      : prompt;
    runtime.needsPriming = false;
    return this.runTurn(
      record.id,
      runtime,
      runtime.session.prompt(blocks as never[], { meta }),
      signal,
    );
  }

  private async runTurn(
    hubId: string,
    runtime: Runtime,
    turn: TurnPort,
    signal: AbortSignal,
  ): Promise<Params> {
    runtime.turn = turn;
    const onAbort = () => turn.cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    const done = (async () => {
      for await (const event of turn)
        await relayEvent(this.relay, hubId, event as GatewayEvent);
      return turn.result;
    })();
    runtime.turnDone = done.catch(() => undefined);
    try {
      const result = await done;
      this.ledger.append(hubId, "turn_end", { stopReason: result.stopReason });
      return result.response;
    } catch (error) {
      this.ledger.append(hubId, "turn_end", {
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      runtime.turn = undefined;
    }
  }

  cancel(params: Params): void {
    const runtime = this.runtimes.get(String(params["sessionId"]));
    runtime?.turn?.cancel();
  }

  listSessions(params: Params): Params {
    this.requireInit();
    let page;
    try {
      page = this.ledger.listSessions({
        cwd: params["cwd"] as string | undefined,
        cursor: params["cursor"] as string | undefined,
      });
    } catch (error) {
      throw new HubError("USAGE", (error as Error).message);
    }
    return {
      sessions: page.sessions.map((s) => ({
        sessionId: s.id,
        cwd: s.cwd,
        title: s.title,
        updatedAt: new Date(s.updatedAt).toISOString(),
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  async loadSession(params: Params): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    if (record.incomplete)
      await tellEditor(
        this.editor,
        record.id,
        "older history of this session was trimmed (ledger caps); the replay starts later",
        this.notices,
      );
    for (const item of replayItems(this.ledger.events(record.id))) {
      await this.editor?.notify("session/update", {
        sessionId: record.id,
        update: item.update,
        ...(item.meta ? { _meta: item.meta } : {}),
      });
    }
    const { runtime } = await this.live(record);
    this.ledger.updateSession(record.id, { state: "active" });
    return { ...stateOf(runtime.session) };
  }

  async resumeSession(params: Params): Promise<Params> {
    this.requireInit();
    const record = this.record(params["sessionId"]);
    const { runtime } = await this.live(record);
    this.ledger.updateSession(record.id, { state: "active" });
    return { ...stateOf(runtime.session) };
  }

  async closeSession(params: Params): Promise<Params> {
    const record = this.record(params["sessionId"]);
    const runtime = this.runtimes.get(record.id);
    if (runtime) {
      runtime.turn?.cancel();
      runtime.unsubscribe();
      this.runtimes.delete(record.id);
      if (runtime.agent.alive && runtime.agent.supports("close"))
        await runtime.agent.closeSession(runtime.session.id);
    }
    this.ledger.updateSession(record.id, { state: "closed" });
    return {};
  }

  async deleteSession(params: Params): Promise<Params> {
    const record = this.record(params["sessionId"]);
    const runtime = this.runtimes.get(record.id);
    runtime?.turn?.cancel();
    runtime?.unsubscribe();
    this.runtimes.delete(record.id);
    const agent = runtime?.agent;
    if (agent?.alive && agent.supports("delete") && record.agentSessionId) {
      await agent
        .deleteSession(record.agentSessionId)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error },
            "agent could not delete the session",
          ),
        );
    }
    this.ledger.deleteSession(record.id);
    return {};
  }

  // Session-scoped requests relayed to the agent with its own session id (set_mode, …).
  async forwardSessionRequest(
    method: string,
    params: Params,
    signal: AbortSignal,
  ): Promise<unknown> {
    const record = this.record(params["sessionId"]);
    const { runtime } = await this.live(record);
    return runtime.agent.request(
      method,
      { ...params, sessionId: runtime.session.id },
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
    return agent.request(method, this.toAgentIds(params), signal);
  }

  async forwardExtensionNotification(
    method: string,
    params: unknown,
  ): Promise<void> {
    (await this.agent()).notify(method, this.toAgentIds(params));
  }

  private toAgentIds(params: unknown): unknown {
    const p = params as Params | null;
    const runtime =
      typeof p?.["sessionId"] === "string"
        ? this.runtimes.get(p["sessionId"])
        : undefined;
    return runtime ? { ...p, sessionId: runtime.session.id } : params;
  }

  /** A request from the agent to the editor (permission, fs, terminal, `_` methods), with
   *  the agent's session id replaced by acphub's. */
  async toEditor<T = unknown>(
    method: string,
    params: Params,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!this.editor) throw new HubError("CLOSED", "no editor is connected");
    return this.editor.request<T>(method, this.toHubIds(params), signal);
  }

  notifyEditor(method: string, params: Params): void {
    void this.editor
      ?.notify(method, this.toHubIds(params))
      .catch(() => undefined);
  }

  private toHubIds(params: Params): Params {
    const hubId =
      typeof params["sessionId"] === "string"
        ? this.hubIdOf(params["sessionId"])
        : undefined;
    return hubId ? { ...params, sessionId: hubId } : params;
  }

  /** Maps an agent's session id back to acphub's, for requests the agent sends the editor. */
  hubIdOf(agentSessionId: string): string | undefined {
    for (const [hubId, runtime] of this.runtimes)
      if (runtime.session.id === agentSessionId) return hubId;
    return undefined;
  }

  async close(): Promise<void> {
    for (const runtime of this.runtimes.values()) runtime.turn?.cancel();
    await Promise.allSettled(
      [...this.runtimes.values()].map((r) => r.turnDone),
    );
    const agent = await this.agentPromise?.catch(() => undefined);
    await agent?.close();
    this.ledger.close();
  }
}

function stateOf(session: AgentSessionPort): Params {
  const { modes, configOptions, models } = session.state as Params;
  return {
    ...(modes ? { modes } : {}),
    ...(configOptions ? { configOptions } : {}),
    ...(models ? { models } : {}),
  };
}

export { openParams };
