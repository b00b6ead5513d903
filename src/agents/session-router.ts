// Routes what an agent sends to the session it concerns: updates and extension notifications
// (taken off the raw stream), permission requests, bridged fs/terminal requests, and
// extension requests answered by the host.
import { agentUpdateParams } from "../protocol/own-meta.js";
import {
  RequestError,
  type AnyMessage,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { isRelayedFromAgent } from "../protocol/method-table.js";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import type { Logger } from "../shared/logger.js";
import type { ClientRouter } from "./client-app.js";
import type {
  BridgeMethod,
  ClientHost,
  HostContext,
} from "../contracts/client-host.js";
import type { AgentSession } from "./session.js";

/** Updates kept for sessions not yet known (sent with or just before the session/new answer). */
const MAX_EARLY_UPDATES = 256;

export class SessionRouter implements ClientRouter {
  readonly sessions = new Map<string, AgentSession>();
  private early: SessionNotification[] = [];

  constructor(
    private readonly host: ClientHost | undefined,
    private readonly logger: Logger,
    /** An acphub hub as the agent: its `_meta.acphub` is acphub's own (ConnectOptions). */
    private readonly agentIsHub = false,
  ) {}

  // session/update and extension notifications are taken off the raw stream: the SDK's own
  // router validates updates and drops variants it does not know (a gateway must pass those
  // through unchanged), and reading them here keeps them in wire order with the responses.
  intercept(message: AnyMessage): boolean {
    if (!("method" in message) || "id" in message) return false;
    const { method } = message;
    if (
      isExtensionMethod(method) ||
      (method !== methods.client.session.update && isRelayedFromAgent(method))
    ) {
      this.onExtNotification(message.method, message.params);
      return true;
    }
    if (message.method !== methods.client.session.update) return false;
    // acphub's own `_meta` keys are never the agent's to send (issue 34).
    const sent = message.params as Partial<SessionNotification> | undefined;
    const params = sent && !this.agentIsHub ? agentUpdateParams(sent) : sent;
    const session = this.sessions.get(String(params?.sessionId));
    if (!params?.update || typeof params.update !== "object") {
      this.logger.warn(
        { params },
        "malformed session/update from agent; dropped",
      );
    } else if (session) this.deliver(session, params as SessionNotification);
    else this.keepEarly(params as SessionNotification);
    return true;
  }

  // The host learns of the update first (a permission request may follow), then the session.
  private deliver(session: AgentSession, notification: SessionNotification) {
    this.tellHost(session.id, notification.update);
    session.receiveUpdate(notification);
  }

  // The host's bug is logged, never a failure of the agent's stream.
  private tellHost(sessionId: string, update: SessionNotification["update"]) {
    try {
      this.host?.onSessionUpdate?.(sessionId, update);
    } catch (error) {
      this.logger.warn({ err: error }, "host failed to see a session/update");
    }
  }

  // An agent may send updates in the same write as its session/new or session/load answer,
  // before the session is registered here: keep them (bounded) for adopt().
  private keepEarly(notification: SessionNotification): void {
    this.logger.debug(
      { sessionId: notification.sessionId },
      "update for a session not yet known; kept",
    );
    this.early.push(notification);
    if (this.early.length > MAX_EARLY_UPDATES) this.early.shift();
  }

  // Registers a session and hands it the updates that arrived for it before it was known.
  adopt(session: AgentSession): void {
    this.sessions.set(session.id, session);
    const mine = this.early.filter((n) => n.sessionId === session.id);
    this.early = this.early.filter((n) => n.sessionId !== session.id);
    for (const notification of mine) this.deliver(session, notification);
  }

  onPermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const session = this.sessions.get(request.sessionId);
    if (!session) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    return session.decidePermission(request, signal);
  }

  onBridge(
    method: BridgeMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) {
    const handler = this.host?.bridge?.[method];
    const session = this.sessions.get(String(params["sessionId"]));
    if (!handler || !session) throw RequestError.methodNotFound(method);
    return session.bridge(method, params, handler, signal);
  }

  async onExtRequest(
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const handler =
      this.host?.extensions?.[method] ??
      (this.host?.extensionFallback &&
        ((p: unknown, c: HostContext) =>
          this.host!.extensionFallback!(method, p, c)));
    if (!handler) throw RequestError.methodNotFound(method);
    const sessionId = sessionIdOf(params);
    const session = this.sessions.get(sessionId);
    return handler(params, {
      sessionId,
      signal,
      emit: (event) => session?.emit(event),
    });
  }

  private onExtNotification(method: string, params: unknown): void {
    const sessionId = sessionIdOf(params);
    const session = this.sessions.get(sessionId);
    if (session)
      session.emit({
        type: "extension_notification",
        sessionId,
        method,
        params,
      });
    else if (this.host?.onExtNotification)
      this.host.onExtNotification(method, params);
    else
      this.logger.debug({ method }, "extension notification outside a session");
  }
}

function sessionIdOf(params: unknown): string {
  const value = (params as { sessionId?: unknown } | null)?.sessionId;
  return typeof value === "string" ? value : "";
}
