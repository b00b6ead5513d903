// A live agent connection: the ACP handshake and session API on top of the transport. Each
// session method is used only when the agent advertised it, else UNSUPPORTED names the
// capability.
import type {
  InitializeResponse,
  ListSessionsResponse,
  McpServer,
} from "@agentclientprotocol/sdk";
import { methods, PROTOCOL_VERSION } from "../protocol/methods.js";
import { checkAgentProtocolVersion } from "../protocol/version.js";
import { HubError, isHubError } from "../shared/errors.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import { hostCapabilities } from "../contracts/client-host.js";
import { ConnectionCore, type ConnectOptions } from "./connection-core.js";
import type { RunEvent } from "../contracts/events.js";
import { unsupported } from "./agent-errors.js";
import { AgentSession, type SessionState } from "./session.js";

export type { ConnectOptions };

export interface SessionParams {
  cwd: string;
  mcpServers?: McpServer[];
  additionalDirectories?: string[];
  meta?: Record<string, unknown>;
}

export interface LoadedSession {
  session: AgentSession;
  /** The updates the agent replayed while loading, in order. */
  replay: RunEvent[];
}

type Capability = "loadSession" | "list" | "resume" | "close" | "delete";

export class AgentConnection extends ConnectionCore {
  // Sends `initialize` with a timeout and checks the protocol version.
  async initialize(signal?: AbortSignal): Promise<InitializeResponse> {
    const ms = this.limits.initializeTimeoutMs;
    const timer = setTimeout(() => {
      const message = `agent "${this.launch.name}" did not answer initialize within ${ms} ms${this.noiseHint()}`;
      const details = { stderrTail: this.process.stderrTail() };
      this.fail(
        new HubError("INIT_TIMEOUT", message, { retryable: true, details }),
      );
    }, ms);
    const onAbort = () =>
      this.fail(new HubError("CLOSED", "connecting was aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.call<InitializeResponse>(
        methods.agent.initialize,
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: hostCapabilities(this.host),
          clientInfo: {
            name: "acphub",
            title: "acphub",
            version: ACPHUB_VERSION,
          },
        },
      );
      const version = checkAgentProtocolVersion(response.protocolVersion);
      if (!version.ok) {
        const error = new HubError("PROTOCOL_VERSION", version.reason);
        this.fail(error);
        throw error;
      }
      this.initializeResponse = response;
      return response;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  get capabilities() {
    return this.initializeResponse?.agentCapabilities ?? {};
  }

  get authMethods() {
    return this.initializeResponse?.authMethods ?? [];
  }

  supports(capability: Capability): boolean {
    const caps = this.capabilities;
    if (capability === "loadSession") return caps.loadSession === true;
    const value = caps.sessionCapabilities?.[capability];
    return value !== undefined && value !== null;
  }

  private require(capability: Capability, method: string): void {
    if (this.supports(capability)) return;
    const name =
      capability === "loadSession"
        ? "loadSession"
        : `sessionCapabilities.${capability}`;
    throw unsupported(this.launch.name, method, name);
  }

  private sessionRequest(params: SessionParams) {
    const { cwd, mcpServers = [], additionalDirectories, meta } = params;
    return {
      cwd,
      mcpServers,
      ...(additionalDirectories ? { additionalDirectories } : {}),
      ...(meta ? { _meta: meta } : {}),
    };
  }

  // Adds the agent's auth methods to AUTH_REQUIRED so callers can offer `authenticate`.
  private async sessionCall<T>(method: string, params: unknown): Promise<T> {
    try {
      return await this.call<T>(method, params);
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
    const session = new AgentSession(this, id, state);
    this.sessions.set(id, session);
    const { cwd, additionalDirectories } = params;
    this.host?.onSessionStart?.(id, { cwd, additionalDirectories });
    return session;
  }

  async newSession(params: SessionParams): Promise<AgentSession> {
    const response = await this.sessionCall<
      SessionState & { sessionId: string }
    >(methods.agent.session.new, this.sessionRequest(params));
    return this.open(response.sessionId, response, params);
  }

  async loadSession(
    sessionId: string,
    params: SessionParams,
  ): Promise<LoadedSession> {
    this.require("loadSession", methods.agent.session.load);
    const session = this.open(sessionId, {}, params);
    const replay: RunEvent[] = [];
    const stop = session.onEvent((event) => replay.push(event));
    try {
      const request = { sessionId, ...this.sessionRequest(params) };
      session.state = await this.sessionCall<SessionState>(
        methods.agent.session.load,
        request,
      );
      return { session, replay };
    } catch (error) {
      this.forget(sessionId);
      throw error;
    } finally {
      stop();
    }
  }

  async resumeSession(
    sessionId: string,
    params: SessionParams,
  ): Promise<AgentSession> {
    this.require("resume", methods.agent.session.resume);
    const request = { sessionId, ...this.sessionRequest(params) };
    const state = await this.sessionCall<SessionState>(
      methods.agent.session.resume,
      request,
    );
    return this.open(sessionId, state, params);
  }

  async listSessions(
    params: { cwd?: string; cursor?: string } = {},
  ): Promise<ListSessionsResponse> {
    this.require("list", methods.agent.session.list);
    return this.call<ListSessionsResponse>(methods.agent.session.list, params);
  }

  async closeSession(sessionId: string): Promise<void> {
    this.require("close", methods.agent.session.close);
    this.sessions.get(sessionId)?.cancel();
    await this.call(methods.agent.session.close, { sessionId });
    this.forget(sessionId);
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.require("delete", methods.agent.session.delete);
    await this.call(methods.agent.session.delete, { sessionId });
    this.forget(sessionId);
  }

  private forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.host?.onSessionEnd?.(sessionId);
  }

  async authenticate(methodId: string): Promise<void> {
    await this.call(methods.agent.authenticate, { methodId });
  }

  /** Any request, for extension methods (`_vendor/…`); the response is returned as received. */
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.call<T>(method, params, signal);
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
