// A live agent connection: the ACP handshake over a transport (process and wire) and a router
// (what the agent sends, by session); the session requests themselves are the opener's.
import type {
  InitializeResponse,
  ListSessionsResponse,
} from "@agentclientprotocol/sdk";
import type { ClientHost } from "../contracts/client-host.js";
import { methods } from "../protocol/methods.js";
import { HubError, isHubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import type { AgentProcess } from "./agent-process.js";
import { AgentTransport } from "./agent-transport.js";
import {
  supportsCapability,
  type Capability,
  type SessionParams,
} from "./capabilities.js";
import { initializeAgent } from "./handshake.js";
import { resolveLimits, type ConnectionLimits } from "./limits.js";
import type { AgentLaunch } from "./registry.js";
import { SessionOpener, type LoadedSession } from "./session-opener.js";
import { SessionRouter } from "./session-router.js";
import type { AgentSession, SessionLink } from "./session.js";

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
  /** The agent is an acphub hub (`--hub`): its `_meta.acphub` keys (authors, notices) are
   *  acphub's own and kept; any other agent's are removed (issue 34). */
  agentIsHub?: boolean;
}

export type { SessionParams, LoadedSession };

export class AgentConnection {
  readonly host: ClientHost | undefined;
  private readonly transport: AgentTransport;
  private readonly router: SessionRouter;
  /** What each session of this connection may use of it. */
  private readonly link: SessionLink;
  private readonly opener: SessionOpener;

  constructor(options: ConnectOptions) {
    const limits = resolveLimits(options);
    const logger = (options.logger ?? silentLogger()).child({
      agent: options.launch.name,
    });
    this.host = options.host;
    this.router = new SessionRouter(
      options.host,
      logger,
      options.agentIsHub === true,
    );
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
      agentIsHub: options.agentIsHub === true,
      limits,
      host: options.host,
      logger,
      call: (method, params, signal) => t.call(method, params, signal),
      callWithin: (method, params, signal) =>
        t.callWithin(method, params, signal),
      notify: (method, params) => t.notify(method, params),
      fail: (error) => t.fail(error),
    };
    this.opener = new SessionOpener({
      transport: t,
      router: this.router,
      link: this.link,
      host: options.host,
      capabilities: () => this.capabilities,
      authMethods: () => this.authMethods,
    });
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

  newSession(
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<AgentSession> {
    return this.opener.newSession(params, signal);
  }

  loadSession(
    sessionId: string,
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<LoadedSession> {
    return this.opener.loadSession(sessionId, params, signal);
  }

  resumeSession(
    sessionId: string,
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<AgentSession> {
    return this.opener.resumeSession(sessionId, params, signal);
  }

  forkSession(sessionId: string, params: SessionParams): Promise<AgentSession> {
    return this.opener.forkSession(sessionId, params);
  }

  listSessions(
    params: { cwd?: string; cursor?: string } = {},
    signal?: AbortSignal,
  ): Promise<ListSessionsResponse> {
    return this.opener.listSessions(params, signal);
  }

  closeSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    return this.opener.closeSession(sessionId, signal);
  }

  deleteSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    return this.opener.deleteSession(sessionId, signal);
  }

  releaseSession(sessionId: string): void {
    this.opener.releaseSession(sessionId);
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
