// A request another node of a cluster carried here because this node runs its session (issue
// 37), answered as if its client were connected here: a prompt through the hub's prompt path
// (admitted again here without quotas, which the sending node counted), close and fork through
// their hub paths, settings and the agent's own methods on the session's gateway. Its client is
// a stand-in: its user is the sender's connection's, it is never attached here and never asked
// a question (closed), so a permission question of its turn goes to the clients attached here.
import { randomUUID } from "node:crypto";
import type { HubUser } from "../contracts/users.js";
import type { Gateway } from "../engine/gateway.js";
import { SERVED } from "../engine/dispatch.js";
import { editorMethods } from "../protocol/method-table.js";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import type { HubClient } from "./attachments.js";
import { forkHere } from "./fork.js";
import type { SessionHub } from "./session-hub.js";

const m = methods.agent;

/** A notification carried as a request: its method is prefixed so, and it is answered `{}`. */
export const NOTIFY_PREFIX = "notify:";

/** The carried request, as the hub runs it. */
export interface CarriedRequest {
  sessionId: string;
  method: string;
  params: Params;
  caller?: { name: string; role: string };
}

// The stand-in client of a carried request.
function routedClient(caller: CarriedRequest["caller"]): HubClient {
  return {
    id: `routed-${randomUUID()}`,
    ...(caller ? { user: caller as HubUser } : {}),
    routed: true,
    closed: true,
    notify: () => undefined,
    request: () =>
      Promise.reject(
        new HubError("CLOSED", "a carried request's client is on its node"),
      ),
  };
}

/** Runs a request carried here; what it answers (or throws) goes back to the sending node. */
export async function serveCarried(
  hub: SessionHub,
  request: CarriedRequest,
  signal: AbortSignal,
): Promise<unknown> {
  const client = routedClient(request.caller);
  const { method, params } = request;
  if (method === m.session.prompt) return hub.prompt(client, params, signal);
  if (method === m.session.close) return hub.closeSession(client, params);
  const record = await hub.record(request.sessionId, client);
  // A queued prompt is revoked where its line is: here.
  if (method === HUB_METHOD.queueRevoke)
    return hub.queue.revoke(client, record.id, params);
  if (method === m.session.fork)
    return hub.hereOrRunner(client, record, method, params, signal, () =>
      forkHere(hub, client, record, params),
    );
  return hub.onRunner(client, record, method, params, signal, (g) =>
    callOnGateway(g, method, params, signal),
  );
}

/** A session's request on its gateway, as a connection here would send it. */
export async function callOnGateway(
  gateway: Gateway,
  method: string,
  params: Params,
  signal: AbortSignal,
): Promise<unknown> {
  if (method.startsWith(NOTIFY_PREFIX)) {
    const name = method.slice(NOTIFY_PREFIX.length);
    await gateway.forwardExtensionNotification(name, params);
    return {};
  }
  const entry = editorMethods().find(
    (e) => e.method === method && e.kind === "request",
  );
  const served = SERVED[method];
  if (entry?.handling === "served" && served)
    return served(gateway, params, signal);
  if (entry?.handling === "forwarded")
    return gateway.forward(method, params, signal);
  if (isExtensionMethod(method))
    return gateway.forwardExtension(method, params, signal);
  return gateway.forwardUnknown(method, params, signal);
}
