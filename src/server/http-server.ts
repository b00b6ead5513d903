// `acphub serve`'s one node:http(s) server: `/acp` speaks ACP over Streamable HTTP and
// WebSocket through the SDK's server transports, `/healthz` answers without a token, and
// `/metrics` with one. Every other request and every upgrade passes the guard first.
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { WebSocketServer } from "ws";
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { RequestGuard, type OtherCredential, type Verdict } from "./guard.js";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./limits.js";
import { ownOrigins, isLoopback, reachableUrl } from "./origins.js";
import type { WebRoutes } from "./web-routes.js";
import { httpLiveness, type HttpLiveness } from "./http-liveness.js";
import { keepAlive } from "./ws-keepalive.js";
import { coalesceWrites } from "./write-coalescing.js";
import type { HubUser } from "../contracts/users.js";
import { BUILTIN_ADMIN_USER } from "./user-directory.js";
import {
  NO_DEFAULT_AGENT,
  serveHttp,
  upgradeWebSocket,
  type ConnectionFactory,
} from "./per-connection.js";
import { ConnectionOwners } from "./connection-owners.js";
import { PendingSockets } from "./pending-sockets.js";
import { connectionRefusal } from "./connection-caps.js";
import { ClientResolver } from "./client-address.js";

export interface HubServerOptions {
  host: string;
  port: number;
  token: string;
  allowOrigins?: readonly string[];
  tls?: { cert: Buffer; key: Buffer };
  /** The URL a reverse proxy serves the hub under: one of its own origins. */
  publicUrl?: string;
  allowPlainHttp?: boolean;
  /** The ACP agent side of one connection (a fresh one for each), given whose it is. */
  createAgent: ConnectionFactory;
  /** ACP connections open now, for the connection bound. */
  openConnections: () => number;
  /** ACP connections a user holds open now, for the per-user bound. */
  openConnectionsOf?: (user: string) => number;
  limits?: Partial<ServerLimits>;
  /** Proxies (addresses, CIDR ranges) whose forwarded headers name the client. */
  trustedProxies?: readonly string[];
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** What /healthz adds (a cluster node's database and leases); `ok: false` answers 503. */
  health?: () => { ok: boolean } & Record<string, unknown>;
  /** The web page's routes (`/`, assets, login, logout); none: no page. */
  web?: WebRoutes;
  /** A credential accepted besides the bearer token (the web page's cookie). */
  alsoAccepts?: OtherCredential;
  /** The user a request is (issue 22); undefined: nobody (401, never anyone else). Without it,
   *  whoever passes the guard (the serve token, or `alsoAccepts`) is the built-in admin. */
  identify?: (req: IncomingMessage) => HubUser | undefined;
  logger?: Logger;
}

export interface HubServer {
  url: string;
  /** Stops accepting connections; the open ones carry on. */
  stopAccepting(): void;
  /** Closes every ACP connection (clients are told) and the server. */
  close(): Promise<void>;
}

// Refuses a plain-HTTP bind on a non-loopback address unless the caller insisted.
function checkBind(o: HubServerOptions): void {
  if (o.tls || isLoopback(o.host) || o.allowPlainHttp) return;
  throw new HubError(
    "USAGE",
    `refusing to serve plain HTTP on ${o.host}: anyone on that network could read the token and drive your agents. Give --tls-cert/--tls-key, or --allow-plain-http to accept that`,
  );
}

export async function startHubServer(o: HubServerOptions): Promise<HubServer> {
  checkBind(o);
  const limits = { ...DEFAULT_SERVER_LIMITS, ...o.limits };
  const logger = o.logger ?? silentLogger();
  const clients = new ClientResolver(o.trustedProxies);
  const guard = new RequestGuard({
    onBackoff: (address, seconds) =>
      logger.warn({ address, seconds }, "too many wrong credentials; refusing"),
    token: o.token,
    allowOrigins: o.allowOrigins ?? [],
    maxFailedAuth: limits.maxFailedAuth,
    authBackoffMs: limits.authBackoffMs,
    // A user's token, login cookie or trusted-proxy header counts as the serve token does; a
    // wrong one counts toward the back-off like a wrong serve token (issue 21).
    alsoAccepts: {
      presented: (req) => o.alsoAccepts?.presented(req) === true,
      accepts: (req) =>
        o.alsoAccepts?.accepts(req) === true || o.identify?.(req) !== undefined,
    },
  });
  // Who a request that passed the guard is: an unknown or removed user is nobody (issue 34).
  const userOf = (req: IncomingMessage): HubUser | undefined =>
    o.identify ? o.identify(req) : BUILTIN_ADMIN_USER;
  const pending = new PendingSockets({
    perAddress: limits.maxUnauthenticatedPerAddress,
    total: limits.maxUnauthenticated,
    deadlineMs: limits.handshakeTimeoutMs,
  });
  // Why `user` may not open one more ACP connection now, if they may not.
  const capacityRefusal = (user: HubUser) =>
    connectionRefusal(
      limits,
      user,
      o.openConnections(),
      o.openConnectionsOf?.(user.name) ?? 0,
    );
  // A socket's first authenticated request ends its handshake deadline; until one, each
  // response closes the socket (a credential-less socket serves one request).
  const settle = (req: IncomingMessage, res: ServerResponse) => {
    if (!pending.isPending(req.socket)) return;
    if (guard.accepts(req) && userOf(req) !== undefined)
      pending.authenticated(req.socket);
    else res.setHeader("Connection", "close");
  };
  const owners = new ConnectionOwners(limits.maxConnections * 4);
  // Every connection is made with its own request's agent (per-connection.ts).
  const acp = new AcpServer({
    agent: NO_DEFAULT_AGENT,
    maxBufferedBytes: limits.maxBufferedBytes,
  });
  // Each request's connection (made at its initialize, after its body was read) is its user's.
  const onHttp = (req: IncomingMessage, res: ServerResponse, user: HubUser) =>
    serveHttp(acp, o.createAgent, user, limits.maxBodyBytes)(req, res);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
  });
  const stopPings = keepAlive(wss, limits.idleTimeoutMs);
  const liveness = httpLiveness(limits.idleTimeoutMs, (connectionId) => {
    logger.info({ connectionId }, "HTTP client gone (no event stream)");
    const headers = { "Acp-Connection-Id": connectionId };
    const gone = new Request("http://hub/acp", { method: "DELETE", headers });
    void acp.handleRequest(gone).catch(() => undefined);
  });
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
  const server: Server = o.tls
    ? createHttps({ ...serverOptions, cert: o.tls.cert, key: o.tls.key })
    : createHttp(serverOptions);
  // Unauthenticated sockets are bounded by `pending`, the rest by the connection bounds.
  server.maxConnections = limits.maxConnections * 2 + limits.maxUnauthenticated;
  server.on("connection", (socket: Socket) =>
    pending.accept(socket, clients.isTrusted(socket.remoteAddress)),
  );
  server.on(o.tls ? "secureConnection" : "connection", coalesceWrites);

  // A request's login cookie is read first (a cluster keeps logins in its database).
  // Each request's client is resolved as it arrives (a proxy's socket counted as that client's).
  const prepared =
    <A extends unknown[]>(handle: (req: IncomingMessage, ...rest: A) => void) =>
    (req: IncomingMessage, ...rest: A) => {
      pending.attribute(req.socket, clients.resolve(req).address);
      const ready = o.alsoAccepts?.prepare?.(req);
      if (!ready) return handle(req, ...rest);
      const go = () => handle(req, ...rest);
      void ready.then(go, go);
    };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    settle(req, res);
    const path = pathOf(req);
    if (path === "/healthz" && req.method === "GET") {
      const { ok, ...more } = o.health?.() ?? { ok: true };
      return send(
        res,
        ok ? 200 : 503,
        JSON.stringify({ status: ok ? "ok" : "degraded", ...more }),
        "application/json",
      );
    }
    if (o.web?.owns(path)) return o.web.handle(req, res, guard);
    const verdict = guard.check(req, true);
    if (!verdict.ok) return refuse(res, verdict);
    const user = userOf(req);
    if (!user) return refuse(res, UNKNOWN_USER);
    if (path === "/metrics" && req.method === "GET" && o.metrics) {
      if (user.role !== "admin")
        return send(res, 403, "/metrics is for admins", "text/plain");
      void o.metrics().then(
        (m) => send(res, 200, m.body, m.contentType),
        () => send(res, 500, "metrics failed", "text/plain"),
      );
      return;
    }
    if (path !== "/acp") return send(res, 404, "not found", "text/plain");
    const full =
      req.method === "POST" && !req.headers["acp-connection-id"]
        ? capacityRefusal(user)
        : undefined;
    if (full !== undefined) return send(res, 503, full, "text/plain");
    if (!owners.allows(req, user))
      return send(res, 404, "Unknown Acp-Connection-Id", "text/plain");
    owners.watch(req, res, user);
    watchEventStream(req, res, liveness);
    onHttp(req, res, user);
  };
  server.on("request", prepared(onRequest));
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const verdict = guard.check(req, true);
    if (!verdict.ok) return refuseUpgrade(socket, verdict);
    if (pathOf(req) !== "/acp")
      return refuseUpgrade(socket, {
        ok: false,
        status: 404,
        message: "not found",
      });
    const user = userOf(req);
    if (!user) return refuseUpgrade(socket, UNKNOWN_USER);
    pending.authenticated(req.socket);
    const full = capacityRefusal(user);
    if (full !== undefined)
      return refuseUpgrade(socket, { ok: false, status: 503, message: full });
    upgradeWebSocket(acp, wss, o.createAgent, user)(req, socket, head);
  };
  server.on("upgrade", prepared(onUpgrade));
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const status =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "408 Request Timeout"
        : "400 Bad Request";
    if (socket.writable)
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const scheme = o.tls ? "https" : "http";
  guard.setOwnOrigins(ownOrigins(scheme, o.host, port, o.publicUrl));
  const url = reachableUrl(scheme, o.host, port);
  logger.info({ url }, "acphub serve listening");
  return {
    url,
    stopAccepting: () => server.close(),
    close: async () => {
      server.close();
      pending.stop();
      stopPings();
      liveness.stop();
      await acp.close();
      server.closeAllConnections();
    },
  };
}

/** A credential that names no user (a removed one's cookie): refused, never anyone else. */
const UNKNOWN_USER = {
  ok: false,
  status: 401,
  message: "unknown user",
} as const;

// Tells the liveness watch about a Streamable HTTP client's requests (each open one shows it is
// there), its DELETE, and the id a new connection was given (its clock starts then).
function watchEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  liveness: HttpLiveness,
): void {
  const id = req.headers["acp-connection-id"];
  if (typeof id !== "string") {
    if (req.method !== "POST") return;
    res.once("close", () => {
      const given = res.getHeader("acp-connection-id");
      if (typeof given === "string") liveness.created(given);
    });
    return;
  }
  if (req.method === "DELETE") return liveness.forget(id);
  liveness.opened(id);
  res.once("close", () => liveness.closed(id));
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?", 1)[0] ?? "/";
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
): void {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" });
  res.end(body);
}

function refuse(res: ServerResponse, v: Exclude<Verdict, { ok: true }>): void {
  if (v.retryAfterS !== undefined)
    res.setHeader("Retry-After", String(v.retryAfterS));
  if (v.status === 401)
    res.setHeader("WWW-Authenticate", 'Bearer realm="acphub"');
  send(res, v.status, v.message, "text/plain");
}

// Answers a refused upgrade with a plain HTTP status line and drops the socket.
function refuseUpgrade(
  socket: Duplex,
  v: Exclude<Verdict, { ok: true }>,
): void {
  const extra =
    v.retryAfterS !== undefined ? `Retry-After: ${v.retryAfterS}\r\n` : "";
  socket.end(
    `HTTP/1.1 ${v.status} ${reasonOf(v.status)}\r\nConnection: close\r\nContent-Type: text/plain\r\n${extra}Content-Length: ${Buffer.byteLength(v.message)}\r\n\r\n${v.message}`,
  );
}

function reasonOf(status: number): string {
  const reasons: Record<number, string> = {
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    503: "Service Unavailable",
  };
  return reasons[status] ?? "Error";
}
