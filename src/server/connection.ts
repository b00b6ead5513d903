// One network connection of `acphub serve`, as an ACP agent: its own initialize, session
// rate limit, pending requests and bounded outbound queue, over the session hub that every
// connection shares. Handlers take params as sent, so unknown fields pass through.
import { randomUUID } from "node:crypto";
import {
  agent,
  RequestError,
  type AgentConnection,
  type Stream,
} from "@agentclientprotocol/sdk";
import { perMinute, RateWindow } from "../engine/limits.js";
import type { HubClient } from "../hub/attachments.js";
import type { SessionHub } from "../hub/session-hub.js";
import { clientNameOf, wantsWatch } from "../hub/watch.js";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import { raw, type Params } from "../protocol/raw.js";
import { edge } from "../protocol/to-request-error.js";
import { OutboundQueue } from "./outbound-queue.js";
import { forkOnHub } from "../hub/fork.js";
import { NOTIFY_PREFIX } from "../hub/routed.js";
import type { Gateway } from "../engine/gateway.js";
import { registerTableMethods } from "./connection-table.js";
import {
  answerOwnRequest,
  isOwnRequest,
  type ExtensionServices,
} from "../hub/extension-handlers.js";
import { ConnectionsByUser } from "./connections-by-user.js";
import type { Quotas } from "../hub/quotas.js";
import { opening } from "./admission.js";
import type { SocketWire } from "./socket-wire.js";
import { agentWide, agentWideAdminOnly } from "./agent-wide.js";
import type { AgentConnector, ConnectionContext } from "./per-connection.js";

/** The hub, limits and hooks every connection shares; and the services of acphub's own
 *  requests (`_acphub/agents`, `_acphub/terminal/output`). */
export interface HubConnectionOptions extends ExtensionServices {
  hub: SessionHub;
  logger: Logger;
  sessionsPerMinute: number;
  /** Notifications queued for one client past which, with nothing written for a while, it is
   *  disconnected as too slow (outbound-queue.ts). */
  maxQueuedMessages: number;
  onOpen?: () => void;
  onClose?: () => void;
  /** Per-user quotas on prompts (issue 22); none: unlimited. */
  quotas?: Quotas;
}

/** The per-connection state behind the handlers. */
interface Conn {
  client: HubClient;
  /** Notifications handed to the SDK and not yet written. */
  sending: Set<Promise<void>>;
  limiter: RateWindow;
  connection?: AgentConnection;
  /** The connection has closed (its signal aborted; read once per update, kept as a flag). */
  gone: boolean;
}

// The agent side of `acphub serve`'s connections: `agentFor` makes the SDK's connector of one
// accepted connection, given whose it is (and its socket's wire); `closeUser` closes every
// connection a user opened (removed, or given a new token).
export function hubConnector(o: HubConnectionOptions) {
  const byUser = new ConnectionsByUser();
  // Opens one ACP connection over the SDK's stream, as the context's user.
  const open = (
    context: ConnectionContext,
    stream: Stream,
    options?: { deferConnectHandlers?: boolean },
  ): AgentConnection => {
    const { user, wire } = context;
    const conn = newConn(o, context);
    const app = buildApp(o, conn);
    const connect = app.connect.bind(app) as (
      s: Stream,
      opts?: unknown,
    ) => AgentConnection;
    const connection = connect(wire ? wire.carry(stream) : stream, options);
    conn.connection = connection;
    connection.signal.addEventListener("abort", () => (conn.gone = true), {
      once: true,
    });
    byUser.add(user.name, connection);
    o.hub.addClient(conn.client);
    o.onOpen?.();
    void connection.closed
      .catch(() => undefined)
      .finally(() => {
        byUser.remove(user.name, connection);
        o.hub.removeClient(conn.client);
        o.onClose?.();
      });
    return connection;
  };
  return {
    closeUser: (name: string) => byUser.close(name),
    openBy: (name: string) => byUser.count(name),
    agentFor: (context: ConnectionContext): AgentConnector => ({
      connect: (stream, options) => open(context, stream, options),
    }),
  };
}

// The HubClient of one connection: notifications queue without blocking, up to a bound (a
// client that stops reading is disconnected, one that is handed a burst is not). Over a
// WebSocket they are written as frames (`wire`), else handed to the SDK's transport.
function newConn(
  o: HubConnectionOptions,
  { user, wire }: { user: Conn["client"]["user"]; wire?: SocketWire },
): Conn {
  const outbound = new OutboundQueue(o.maxQueuedMessages, (queued) => {
    o.logger.warn({ queued }, "client too slow; disconnecting");
    conn.connection?.close(
      new HubError(
        "LIMIT_EXCEEDED",
        `outbound queue over ${o.maxQueuedMessages} messages: reattach from your last seq`,
      ),
    );
  });
  const conn: Conn = {
    gone: false,
    sending: new Set(),
    limiter: new RateWindow(),
    client: {
      id: randomUUID(),
      user,
      get closed() {
        return conn.gone;
      },
      notify(note, catchUp) {
        const c = conn.connection;
        if (!c || conn.gone) return;
        if (wire) return wire.writeNote(note, catchUp ? undefined : outbound);
        const sent = () => c.client.notify(note.method, note.params);
        if (catchUp) return track(conn, sent());
        if (outbound.admit()) track(conn, outbound.count(sent()));
      },
      request: (method, params, signal) => {
        const c = conn.connection;
        if (!c) throw new HubError("CLOSED", "connection not ready");
        return c.client.request(method, params, { cancellationSignal: signal });
      },
    },
  };
  return conn;
}

// Keeps a notification's write until it is done, so a response can wait for it.
function track(conn: Conn, sent: Promise<void>): void {
  const p = sent.catch(() => undefined);
  conn.sending.add(p);
  void p.then(() => conn.sending.delete(p));
}

// Runs a handler, then waits until every notification it caused is written: a reply never
// overtakes the updates before it (a load's replay, a turn's last chunks).
async function inOrder<T>(conn: Conn, run: () => Promise<T>): Promise<T> {
  const result = await run();
  await Promise.all([...conn.sending]);
  return result;
}

// A signal for the turn that follows the client's own cancel, but not its disconnection.
function explicitCancel(request: AbortSignal, conn: Conn): AbortSignal {
  const controller = new AbortController();
  request.addEventListener(
    "abort",
    () =>
      setImmediate(() => {
        if (!conn.client.closed) controller.abort(request.reason);
      }),
    { once: true },
  );
  return controller.signal;
}

function buildApp(o: HubConnectionOptions, conn: Conn) {
  const { hub } = o;
  const client = conn.client;
  const m = methods.agent;
  const app = agent({ name: "acphub" });
  registerTableMethods(app, hub, client);
  return app
    .onRequest(m.initialize, raw<Params>, ({ params }) =>
      edge(async () => {
        client.watch = wantsWatch(params);
        client.name = clientNameOf(params);
        return (await hub.gatewayFor(hub.defaultAgent)).initialize({
          protocolVersion: params["protocolVersion"],
          clientCapabilities: {},
        });
      }),
    )
    .onRequest(m.session.new, raw<Params>, ({ params }) =>
      edge(() => {
        perMinute(conn.limiter, o.sessionsPerMinute, " on this connection");
        return opening(o, client, undefined, () =>
          inOrder(conn, () => hub.newSession(client, params)),
        );
      }),
    )
    .onRequest(m.session.load, raw<Params>, ({ params }) =>
      edge(() =>
        opening(o, client, params["sessionId"], () =>
          inOrder(conn, () => hub.loadSession(client, params)),
        ),
      ),
    )
    .onRequest(m.session.list, raw<Params>, ({ params }) =>
      edge(() => hub.listSessions(params, client)),
    )
    .onRequest(m.session.resume, raw<Params>, ({ params }) =>
      edge(() =>
        opening(o, client, params["sessionId"], () =>
          inOrder(conn, () => hub.resumeSession(client, params)),
        ),
      ),
    )
    .onRequest(m.session.fork, raw<Params>, ({ params }) =>
      edge(() =>
        opening(o, client, undefined, () =>
          inOrder(conn, () => forkOnHub(hub, client, params)),
        ),
      ),
    )
    .onRequest(m.session.close, raw<Params>, ({ params }) =>
      edge(() => hub.closeSession(client, params)),
    )
    .onRequest(m.session.delete, raw<Params>, ({ params }) =>
      edge(() => hub.deleteSession(params, client)),
    )
    .onRequest(m.session.prompt, raw<Params>, ({ params, signal }) =>
      edge(async () => {
        return await inOrder(conn, () =>
          hub.prompt(client, params, explicitCancel(signal, conn), o.quotas),
        );
      }),
    )
    .onNotification(m.session.cancel, raw<Params>, ({ params }) => {
      if (hub.attachments.isAttached(String(params["sessionId"]), client))
        void hub
          .cancel(params, client)
          .then(() =>
            hub.access.note(client.user, "cancel", String(params["sessionId"])),
          )
          .catch(() => undefined);
    })
    .onRequest("*", ({ method, params, signal }) => {
      const p = params as Params | undefined;
      if (isExtensionMethod(method))
        return edge(() => extension(o, conn, method, p, signal));
      if (typeof p?.["sessionId"] !== "string")
        throw RequestError.methodNotFound(method);
      return edge(async () => {
        agentWideAdminOnly(client.user, method, p);
        await hub.mustDrive(client, p["sessionId"]);
        const record = await hub.attachedRecord(client, p["sessionId"]);
        return hub.onRunner(client, record, method, p, signal, (g) =>
          g.forwardUnknown(method, p, signal),
        );
      });
    })
    .onNotification("*", ({ method, params }) => {
      if (!isExtensionMethod(method)) return;
      const p = params as Params | undefined;
      // One about no session reaches the shared agent: an admin's only (issue 34).
      if (agentWide(method, p) && (client.user?.role ?? "admin") !== "admin")
        return;
      void onSessionOrDefault(
        o.hub,
        client,
        `${NOTIFY_PREFIX}${method}`,
        p,
        (g) => g.forwardExtensionNotification(method, params),
      ).catch(() => undefined);
    });
}

// acphub's own extension methods (hub/extension-handlers.ts), else the agent's (with the
// session id mapped).
async function extension(
  o: HubConnectionOptions,
  conn: Conn,
  method: string,
  params: Params | undefined,
  signal: AbortSignal,
): Promise<unknown> {
  if (isOwnRequest(method))
    return answerOwnRequest(o.hub, o, conn.client, method, params ?? {});
  agentWideAdminOnly(conn.client.user, method, params);
  if (params?.["sessionId"] !== undefined)
    await o.hub.mustDrive(conn.client, params["sessionId"]);
  return onSessionOrDefault(
    o.hub,
    conn.client,
    method,
    params,
    (g) => g.forwardExtension(method, params, signal),
    signal,
  );
}

// A request for the agent: about a session, on the node that runs it; else the default agent's.
async function onSessionOrDefault(
  hub: SessionHub,
  client: HubClient,
  method: string,
  params: Params | undefined,
  call: (gateway: Gateway) => unknown,
  signal = new AbortController().signal,
): Promise<unknown> {
  if (params?.["sessionId"] === undefined)
    return call(await hub.defaultGateway());
  const record = await hub.attachedRecord(client, params["sessionId"]);
  return hub.onRunner(client, record, method, params, signal, call);
}
