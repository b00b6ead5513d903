// The session requests of one agent connection: new, load (with its replay captured up to the
// answer), resume, fork, list, close and delete. Each is sent only when the agent advertised
// it, else UNSUPPORTED names the capability; every session it opens is registered with the
// router and the host, and every one it ends is forgotten by both.
import type {
  AgentCapabilities,
  AuthMethod,
  ListSessionsResponse,
} from "@agentclientprotocol/sdk";
import type { ClientHost } from "../contracts/client-host.js";
import type { RunEvent } from "../contracts/events.js";
import { methods } from "../protocol/methods.js";
import { isHubError } from "../shared/errors.js";
import type { AgentTransport } from "./agent-transport.js";
import {
  requireCapability,
  sessionRequest,
  type Capability,
  type SessionParams,
} from "./capabilities.js";
import type { SessionRouter } from "./session-router.js";
import {
  AgentSession,
  type SessionLink,
  type SessionState,
} from "./session.js";

export interface LoadedSession {
  session: AgentSession;
  /** The updates the agent replayed while loading, in order. */
  replay: RunEvent[];
}

/** What the opener needs of its connection. */
export interface OpenerParts {
  transport: AgentTransport;
  router: SessionRouter;
  link: SessionLink;
  host: ClientHost | undefined;
  /** What the agent advertised in `initialize` (read at each request). */
  capabilities: () => AgentCapabilities;
  authMethods: () => AuthMethod[];
}

const m = methods.agent.session;

export class SessionOpener {
  constructor(private readonly parts: OpenerParts) {}

  private require(capability: Capability, method: string): void {
    const { capabilities, transport } = this.parts;
    requireCapability(
      capabilities(),
      transport.launch.name,
      capability,
      method,
    );
  }

  // A bounded session request; adds the agent's auth methods to AUTH_REQUIRED so callers can
  // offer `authenticate`.
  private async call<T>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await this.parts.transport.callWithin<T>(method, params, signal);
    } catch (error) {
      if (isHubError(error, "AUTH_REQUIRED"))
        error.details["authMethods"] = this.parts.authMethods();
      throw error;
    }
  }

  // Registers a session the agent now knows, with the router and the host.
  private open(
    id: string,
    state: SessionState,
    params: SessionParams,
  ): AgentSession {
    const session = new AgentSession(this.parts.link, id, state);
    this.parts.router.adopt(session);
    const { cwd, additionalDirectories } = params;
    this.parts.host?.onSessionStart?.(id, { cwd, additionalDirectories });
    return session;
  }

  // Drops a session the agent no longer has, from the router and the host.
  private forget(sessionId: string): void {
    this.parts.router.sessions.delete(sessionId);
    this.parts.host?.onSessionEnd?.(sessionId);
  }

  async newSession(
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<AgentSession> {
    const response = await this.call<SessionState & { sessionId: string }>(
      m.new,
      sessionRequest(params),
      signal,
    );
    return this.open(response.sessionId, response, params);
  }

  async loadSession(
    sessionId: string,
    params: SessionParams,
    signal?: AbortSignal,
  ): Promise<LoadedSession> {
    this.require("loadSession", m.load);
    const session = this.open(sessionId, {}, params);
    // The replay is what comes before the answer; what the agent sends with or after its
    // answer (a command list) is the session's own, kept for the listener that attaches next.
    const replay: RunEvent[] = [];
    const stop = session.onEvent((event) => replay.push(event));
    const unwatch = this.parts.transport.answers.watch(m.load, sessionId, stop);
    try {
      const request = { sessionId, ...sessionRequest(params) };
      session.state = await this.call<SessionState>(m.load, request, signal);
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
    this.require("resume", m.resume);
    const request = { sessionId, ...sessionRequest(params) };
    const state = await this.call<SessionState>(m.resume, request, signal);
    return this.open(sessionId, state, params);
  }

  async forkSession(
    sessionId: string,
    params: SessionParams,
  ): Promise<AgentSession> {
    this.require("fork", m.fork);
    const request = { sessionId, ...sessionRequest(params) };
    const response = await this.call<SessionState & { sessionId: string }>(
      m.fork,
      request,
    );
    return this.open(response.sessionId, response, params);
  }

  async listSessions(
    params: { cwd?: string; cursor?: string },
    signal?: AbortSignal,
  ): Promise<ListSessionsResponse> {
    this.require("list", m.list);
    return this.call<ListSessionsResponse>(m.list, params, signal);
  }

  async closeSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    this.require("close", m.close);
    this.parts.router.sessions.get(sessionId)?.cancel();
    await this.call(m.close, { sessionId }, signal);
    this.forget(sessionId);
  }

  // Forgets a session the agent cannot close: its turn cancelled, its host things released.
  releaseSession(sessionId: string): void {
    this.parts.router.sessions.get(sessionId)?.cancel();
    this.forget(sessionId);
  }

  async deleteSession(sessionId: string, signal?: AbortSignal): Promise<void> {
    this.require("delete", m.delete);
    await this.call(m.delete, { sessionId }, signal);
    this.forget(sessionId);
  }
}
