// Routes what an agent sends to the session it concerns: updates and extension notifications
// (taken off the raw stream), permission requests, bridged fs/terminal requests, and
// extension requests answered by the host.
import {
  RequestError,
  type AnyMessage,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import type { Logger } from "../shared/logger.js";
import type { ClientRouter } from "./client-app.js";
import type {
  BridgeMethod,
  ClientHost,
  HostContext,
} from "../contracts/client-host.js";
import type { AgentSession } from "./session.js";

export class SessionRouter implements ClientRouter {
  readonly sessions = new Map<string, AgentSession>();

  constructor(
    private readonly host: ClientHost | undefined,
    private readonly logger: Logger,
  ) {}

  // session/update and extension notifications are taken off the raw stream: the SDK's own
  // router validates updates and drops variants it does not know (a gateway must pass those
  // through unchanged), and reading them here keeps them in wire order with the responses.
  intercept(message: AnyMessage): boolean {
    if (!("method" in message) || "id" in message) return false;
    if (isExtensionMethod(message.method)) {
      this.onExtNotification(message.method, message.params);
      return true;
    }
    if (message.method !== methods.client.session.update) return false;
    const params = message.params as Partial<SessionNotification> | undefined;
    const session = this.sessions.get(String(params?.sessionId));
    if (!params?.update || typeof params.update !== "object") {
      this.logger.warn(
        { params },
        "malformed session/update from agent; dropped",
      );
    } else if (session) {
      this.tellHost(session.id, params.update);
      session.receiveUpdate(params as SessionNotification);
    } else
      this.logger.debug(
        { sessionId: params.sessionId },
        "update for unknown session",
      );
    return true;
  }

  // The host learns of the update first (a permission request may follow); its bug is logged,
  // never a failure of the agent's stream.
  private tellHost(sessionId: string, update: SessionNotification["update"]) {
    try {
      this.host?.onSessionUpdate?.(sessionId, update);
    } catch (error) {
      this.logger.warn({ err: error }, "host failed to see a session/update");
    }
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
