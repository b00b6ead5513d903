// The gateway's core: one agent process (respawned after it dies), the live agent session
// behind each of acphub's session ids, restoration onto a new process, and the mapping of
// session ids between the editor and the agent.
import { withDefaults } from "../shared/defaults.js";
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import {
  DEFAULT_GATEWAY_LIMITS,
  FixedWindowLimiter,
  type GatewayLimits,
} from "./limits.js";
import type {
  AgentPort,
  AgentSessionPort,
  EditorPort,
  LedgerPort,
  SessionRecord,
  TurnPort,
} from "./ports.js";
import { checkRelayToEditor } from "./forward.js";
import { relayEvent, tellEditor, type RelayContext } from "./relay.js";
import { restoreNotice, restoreSession } from "./restore.js";
import { reapplySettings } from "./reapply-settings.js";
import type { SessionAccess } from "./session-access.js";
import { SettingsStore } from "./session-settings.js";

export interface GatewayOptions {
  agentName: string;
  ledger: LedgerPort;
  /** Spawns and initializes the agent (called again after it dies). */
  connect: () => Promise<AgentPort>;
  limits?: Partial<GatewayLimits>;
  logger?: Logger;
}

export interface Runtime {
  agent: AgentPort;
  session: AgentSessionPort;
  needsPriming: boolean;
  turn?: TurnPort;
  turnDone?: Promise<unknown>;
  unsubscribe: () => void;
}

export type Params = Record<string, unknown>;

export class GatewayCore {
  readonly limits: GatewayLimits;
  protected readonly logger: Logger;
  protected readonly ledger: LedgerPort;
  protected readonly limiter: FixedWindowLimiter;
  readonly settings: SettingsStore;
  protected readonly runtimes = new Map<string, Runtime>();
  protected agentPromise: Promise<AgentPort> | undefined;
  protected editor: EditorPort | undefined;
  protected clientCapabilities: Params = {};
  protected initialized = false;

  constructor(protected readonly options: GatewayOptions) {
    this.ledger = options.ledger;
    this.settings = new SettingsStore(options.ledger);
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

  protected get relay(): RelayContext {
    return {
      ledger: this.ledger,
      settings: this.settings,
      editor: () => this.editor,
      logger: this.logger,
    };
  }

  /** The gateway as the methods beyond the core see it (fork, status, set_*, forwarding). */
  get access(): SessionAccess {
    return {
      agentName: this.options.agentName,
      ledger: this.ledger,
      settings: this.settings,
      logger: this.logger,
      editor: () => this.editor,
      editorCapabilities: () => this.clientCapabilities,
      agent: () => this.agent(),
      record: (id) => this.record(id),
      live: async (record) => (await this.live(record)).runtime,
      current: (hubId) => {
        const runtime = this.runtimes.get(hubId);
        return runtime?.agent.alive ? runtime : undefined;
      },
      attach: (hubId, agent, session) => {
        this.attach(hubId, agent, session, false);
      },
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

  protected requireInit(): void {
    if (!this.initialized) throw new HubError("USAGE", "send initialize first");
  }

  protected record(id: unknown): SessionRecord {
    const record =
      typeof id === "string" ? this.ledger.getSession(id) : undefined;
    if (!record)
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${JSON.stringify(id)}`,
      );
    return record;
  }

  protected attach(
    hubId: string,
    agent: AgentPort,
    session: AgentSessionPort,
    needsPriming: boolean,
  ): Runtime {
    this.runtimes.get(hubId)?.unsubscribe();
    const unsubscribe = session.onEvent((event) => {
      void relayEvent(this.relay, hubId, event).catch((error: unknown) =>
        this.logger.warn({ err: error }, "relay failed"),
      );
    });
    const runtime: Runtime = { agent, session, needsPriming, unsubscribe };
    this.runtimes.set(hubId, runtime);
    return runtime;
  }

  // The live agent session behind a hub session, restoring it onto the agent when needed.
  protected async live(
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
    const fresh = mode === "primed" || mode === "new";
    await reapplySettings(
      this.settings,
      record.id,
      agent,
      session,
      fresh,
      this.logger,
    );
    const runtime = this.attach(record.id, agent, session, mode === "primed");
    const notice = restoreNotice(mode, this.options.agentName);
    if (notice) await tellEditor(this.editor, record.id, notice, this.notices);
    return { runtime, mode };
  }

  protected get notices(): boolean {
    const session = this.clientCapabilities["session"] as
      { notices?: unknown } | undefined;
    return session?.notices !== undefined && session.notices !== null;
  }

  protected toAgentIds(params: unknown): unknown {
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
    checkRelayToEditor(this.access, method);
    return this.editor.request<T>(method, this.toHubIds(params), signal);
  }

  notifyEditor(method: string, params: Params): void {
    try {
      checkRelayToEditor(this.access, method);
    } catch {
      this.logger.debug(
        { method },
        "not relayed: the editor did not ask for it",
      );
      return;
    }
    void this.editor
      ?.notify(method, this.toHubIds(params))
      .catch(() => undefined);
  }

  protected toHubIds(params: Params): Params {
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
}
