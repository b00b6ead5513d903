// A live agent connection: the ACP handshake and session API over a transport (process and
// wire) and a router (what the agent sends, by session). Each session method is used only when
// the agent advertised it, else UNSUPPORTED names the capability.
import type {
  InitializeResponse,
  ListSessionsResponse,
} from "@agentclientprotocol/sdk";
import type { ClientHost } from "../contracts/client-host.js";
import type { RunEvent } from "../contracts/events.js";
import { methods } from "../protocol/methods.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import type { AgentProcess } from "./agent-process.js";
import { AgentTransport } from "./agent-transport.js";
import {
  requireCapability,
  sessionRequest,
  supportsCapability,
  type Capability,
  type SessionParams,
} from "./capabilities.js";
import { initializeAgent } from "./handshake.js";
import { resolveLimits, type ConnectionLimits } from "./limits.js";
import type { AgentLaunch } from "./registry.js";
import { SessionRouter } from "./session-router.js";
import {
  AgentSession,
  type SessionLink,
  type SessionState,
} from "./session.js";

export interface ConnectOptions extends Partial<ConnectionLimits> {
  launch: AgentLaunch;
  /** Working directory of the agent process (default: this process's). */
  cwd?: string;
  logger?: Logger;
  host?: ClientHost;
  /** When set, the agent's pid is recorded there so orphans can be reaped after a crash. */
  stateDir?: string;
  signal?: AbortSignal;
  /** An agent process spawned early (to overlap its start-up with acphub's); else one is spawned. */
  process?: AgentProcess;
}

export type { SessionParams };

export interface LoadedSession {
  session: AgentSession;
  /** The updates the agent replayed while loading, in order. */
  replay: RunEvent[];
}

export class AgentConnection {
  readonly host: ClientHost | undefined;
  private readonly transport: AgentTransport;
  private readonly router: SessionRouter;
  /** What each session of this connection may use of it. */
  private readonly link: SessionLink;

  constructor(options: ConnectOptions) {
    const limits = resolveLimits(options);
    const logger = (options.logger ?? silentLogger()).child({
      agent: options.launch.name,
    });
    this.host = options.host;
    this.router = new SessionRouter(options.host, logger);
    this.transport = new AgentTransport({
      launch: options.launch,
      limits,
      logger,
      router: this.router,
      onFail: (error) => this.endSessions(error),
      cwd: options.cwd,
      stateDir: options.stateDir,
      process: options.process,
    });
    const t = this.transport;
    this.link = {
      agentName: options.launch.name,
      limits,
      host: options.host,
      logger,
      call: (method, params, signal) => t.call(method, params, signal),
      callWithin: (method, params, signal) =>
        t.callWithin(method, params, signal),
      notify: (method, params) => t.notify(method, params),
      fail: (error) => t.fail(error),
    };
  }

  get launch(): AgentLaunch {
    return this.transport.launch;
  }

  get process(): AgentProcess {
    return this.transport.process;
  }

  get limits(): ConnectionLimits {
    return this.transport.limits;
  }

  get logger(): Logger {
    return this.transport.logger;
  }

  /** Resolves when the agent process has exited. */
  get closed(): Promise<void> {
    return this.transport.closed;
  }

  get initializeResponse(): InitializeResponse | undefined {
    return this.transport.initializeResponse;
  }

  get sessions(): Map<string, AgentSession> {
    return this.router.sessions;
  }

  get pid(): number | undefined {
    return this.transport.pid;
  }

  /** The reason this connection stopped working, once it has. */
  get error(): HubError | undefined {
    return this.transport.error;
  }

  get alive(): boolean {
    return this.transport.alive;
  }

  /** Marks the connection failed (first reason wins) and kills the agent. */
  fail(error: HubError): void {
    this.transport.fail(error);
  }

  notify(method: string, params: unknown): void {
    this.transport.notify(method, params);
  }

  /** Shuts the agent down: running turns fail with CLOSED, then stdin end → TERM → KILL. */
  close(): Promise<void> {
    return this.transport.close();
  }

  // Every session of a failed connection ends: its turn fails, the host releases its things.
  private endSessions(error: HubError): void {
    for (const session of this.sessions.values()) {
      session.connectionFailed(error);
      this.host?.onSessionEnd?.(session.id);
    }
  }

  // Sends `initialize` with a timeout and checks the protocol version.
  initialize(signal?: AbortSignal): Promise<InitializeResponse> {
    return initializeAgent(this.transport, this.host, signal);
  }

  get capabilities() {
    return this.initializeResponse?.agentCapabilities ?? {};
  }

  get authMethods() {
    return this.initializeResponse?.authMethods ?? [];
  }

  supports(capability: Capability): boolean {
    return supportsCapability(this.capabilities, capability);
  }

  private require(capability: Capability, method: string): void {
    requireCapability(this.capabilities, this.launch.name, capability, method);
  }

  // A bounded session request; adds the agent's auth methods to AUTH_REQUIRED so callers can
  // offer `authenticate`.
  private async sessionCall<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await this.transport.callWithin<T>(method, params, signal);
    } catch (error) {
      if (isHubError(error, "AUTH_REQUIRED"))
        error.details["authMethods"] = this.authMethods;
      throw error;
    }
  }

  private open(
    id: string,
    state: SessionState,
    params: SessionParams,
  ): AgentSession {
    const session = new AgentSession(this.link, id, state);
    this.router.adopt(session);
    const { cwd, additionalDirectories } = params;
    this.host?.onSessionStart?.(id, { cwd, additionalDirectories });
    return session;
  }

  async newSession(
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<AgentSession> {
    const response = await this.sessionCall<
      SessionState & { sessionId: string }
    >(methods.agent.session.new, sessionRequest(params), signal);
    return this.open(response.sessionId, response, params);
  }

  async loadSession(
    sessionId: string,
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<LoadedSession> {
    this.require("loadSession", methods.agent.session.load);
    const session = this.open(sessionId, {}, params);
    // The replay is what comes before the answer; what the agent sends with or after its
    // answer (a command list) is the session's own, kept for the listener that attaches next.
    const replay: RunEvent[] = [];
    const stop = session.onEvent((event) => replay.push(event));
    const method = methods.agent.session.load;
    const unwatch = this.transport.answers.watch(method, sessionId, stop);
    try {
      const request = { sessionId, ...sessionRequest(params) };
      session.state = await this.sessionCall<SessionState>(
        methods.agent.session.load,
        request,
        signal,
      );
      return { session, replay };
    } catch (error) {
      this.forget(sessionId);
      throw error;
    } finally {
      stop();
      unwatch();
    }
  }

  async resumeSession(
    sessionId: string,
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<AgentSession> {
    this.require("resume", methods.agent.session.resume);
    const request = { sessionId, ...sessionRequest(params) };
    const state = await this.sessionCall<SessionState>(
      methods.agent.session.resume,
      request,
      signal,
    );
    return this.open(sessionId, state, params);
  }

  async forkSession(
    sessionId: string,
    params: SessionParams,
  ): Promise<AgentSession> {
    this.require("fork", methods.agent.session.fork);
    const request = { sessionId, ...sessionRequest(params) };
    const response = await this.sessionCall<
      SessionState & { sessionId: string }
    >(methods.agent.session.fork, request);
    return this.open(response.sessionId, response, params);
  }

  async listSessions(
    params: { cwd?: string; cursor?: string } = {},
    signal?: AbortSignal,
  ): Promise<ListSessionsResponse> {
    this.require("list", methods.agent.session.list);
    return this.sessionCall<ListSessionsResponse>(
      methods.agent.session.list,
      params,
      signal,
    );
  }

  async closeSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    this.require("close", methods.agent.session.close);
    this.sessions.get(sessionId)?.cancel();
    const params = { sessionId };
    await this.sessionCall(methods.agent.session.close, params, signal);
    this.forget(sessionId);
  }

  async deleteSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    this.require("delete", methods.agent.session.delete);
    const params = { sessionId };
    await this.sessionCall(methods.agent.session.delete, params, signal);
    this.forget(sessionId);
  }

  private forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.host?.onSessionEnd?.(sessionId);
  }

  async authenticate(methodId: string, signal?: AbortSignal): Promise<void> {
    const params = { methodId };
    await this.transport.callWithin(methods.agent.authenticate, params, signal);
  }

  /** Any request (extension methods, forwarded session requests), bounded; answered as received. */
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.transport.callWithin<T>(method, params, signal);
  }

  /** Whether any session on this connection has a turn running. */
  get busy(): boolean {
    for (const session of this.sessions.values()) if (session.busy) return true;
    return false;
  }
}

/** Spawns an agent and completes `initialize`; on any failure the process is gone. */
export async function connectAgent(
  options: ConnectOptions,
): Promise<AgentConnection> {
  const connection = new AgentConnection(options);
  try {
    await connection.initialize(options.signal);
    return connection;
  } catch (error) {
    if (isHubError(error)) error.details["pid"] ??= connection.pid;
    await connection.close();
    throw error;
  }
}
