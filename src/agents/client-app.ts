// Builds the SDK client app for one agent connection. Every handler uses a pass-through
// parser so nothing the agent sends (`_meta`, extra fields) is lost. session/update and
// extension notifications do not come through here: the connection takes them off the raw
// stream (see SessionRouter.intercept).
import {
  client,
  RequestError,
  type ClientApp,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import { isRelayedFromAgent, refusalOf } from "../protocol/method-table.js";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import { raw } from "../protocol/raw.js";
import { BRIDGE_METHODS, type BridgeMethod } from "../contracts/client-host.js";

/** What the connection does with each kind of message from the agent. */
export interface ClientRouter {
  onPermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  onBridge(
    method: BridgeMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown>;
  onExtRequest(
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown>;
}

export function buildClientApp(router: ClientRouter, name: string): ClientApp {
  const app = client({ name });
  app.onRequest(
    methods.client.session.requestPermission,
    raw<RequestPermissionRequest>,
    ({ params, signal }) => router.onPermission(params, signal),
  );
  for (const method of BRIDGE_METHODS) {
    app.onRequest(method, raw<Record<string, unknown>>, ({ params, signal }) =>
      router.onBridge(method, params, signal),
    );
  }
  app.onRequest("*", ({ method, params, signal }) => {
    const refused = refusalOf(method);
    if (refused) throw refused;
    if (!isExtensionMethod(method) && !isRelayedFromAgent(method))
      throw RequestError.methodNotFound(method);
    return router.onExtRequest(method, params, signal);
  });
  return app;
}
