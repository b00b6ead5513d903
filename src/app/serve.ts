// `acphub serve` built whole: the session hub, its users, the web page and the HTTP server,
// wired once, with a handle that stops them in order (drain, users, hub, server).
import { hostname } from "node:os";
import { hubConnector } from "../server/connection.js";
import { startHubServer, type HubServer } from "../server/http-server.js";
import { DEFAULT_SERVER_LIMITS } from "../server/limits.js";
import { createMetrics } from "../server/metrics.js";
import { loadTlsFiles } from "../server/tls.js";
import { loadToken } from "../server/token.js";
import { DEFAULT_DRAIN_MS } from "../cluster/index.js";
import { HubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { openServeHub, type ServeHub } from "./serve-hub.js";
import { serveWeb } from "./serve-web.js";
import type { ServeUsers } from "./serve-users.js";
import { setUserRoleOverHub } from "./user-admin.js";
import { adminServices, keepAnAdmin } from "./admin-services.js";
import { markServing } from "./serve-marker.js";
import { USER_ROLES, type Actor, type UserStore } from "../contracts/users.js";

const isRole = (role: unknown) =>
  (USER_ROLES as readonly unknown[]).includes(role);

export interface ServeRequest {
  host: string;
  port: number;
  agent?: string;
  tokenFile?: string;
  allowOrigin?: string[];
  tlsCert?: string;
  tlsKey?: string;
  allowPlainHttp?: boolean;
  nodeId?: string;
}

export interface Serving {
  url: string;
  /** Where the serve token came from (a file's path, or ACPHUB_TOKEN). */
  tokenSource: string;
  /** A one-time login link for the web page. */
  loginUrl(): string;
  /** Stops accepting, lets a cluster node's turns end, then stops everything. */
  close(): Promise<void>;
}

// A listen error people can act on: a port in use or not allowed is a setup problem (exit 2).
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const free = "pick another with --port N, or --port 0 for a free one";
  if (code === "EADDRINUSE")
    return new HubError(
      "USAGE",
      `port ${port} on ${host} is already in use: ${free}`,
      { cause: error },
    );
  if (code === "EACCES")
    return new HubError(
      "USAGE",
      `not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges): ${free}`,
      { cause: error },
    );
  if (code === "EADDRNOTAVAIL")
    return new HubError(
      "USAGE",
      `cannot listen on ${host}: no such address on this machine (see --host)`,
      { cause: error },
    );
  return error;
}

function tlsOf(o: ServeRequest): { cert: Buffer; key: Buffer } | undefined {
  if (!o.tlsCert && !o.tlsKey) return undefined;
  if (!o.tlsCert || !o.tlsKey)
    throw new HubError("USAGE", "--tls-cert and --tls-key go together");
  return loadTlsFiles(o.tlsCert, o.tlsKey);
}

// Starts the hub and its server; the caller closes the handle on a signal.
export async function startServe(
  ctx: AppContext,
  o: ServeRequest,
): Promise<Serving> {
  const serve = ctx.config.serve ?? {};
  const { token, source } = loadToken({
    stateDir: ctx.paths.stateDir,
    tokenFile: o.tokenFile,
  });
  let liveSessions = () => 0;
  const metrics = createMetrics(() => liveSessions());
  const hub = await openServeHub(ctx, {
    agent: o.agent,
    metrics,
    cancelOnDisconnect: serve.cancelOnDisconnect ?? false,
    files: { tokenFile: o.tokenFile, tlsCert: o.tlsCert, tlsKey: o.tlsKey },
    serveToken: token,
  });
  liveSessions = () => hub.hub.attachments.sessionCount;
  /** Where it listens and its node id, known once the server listens (the admin page's). */
  const listening = { url: "", nodeId: "" };
  const tls = tlsOf(o);
  const { people } = hub;
  // Cookies are `Secure` when browsers reach the hub over HTTPS: its own TLS, or a proxy's.
  const https = tls !== undefined || /^https:/i.test(serve.publicUrl ?? "");
  const web = serveWeb(
    {
      stateDir: ctx.paths.stateDir,
      secure: https,
      publicUrl: serve.publicUrl,
      shared: hub.webLogins,
    },
    {
      store: hub.users,
      serve: people,
    },
  );
  const limits = { ...DEFAULT_SERVER_LIMITS, ...serve };
  hub.hub.attachments.onOpenChange = (user, id, open) =>
    hub.quotas.sessionOpen(user, id, open);
  const connector = hubConnector({
    hub: hub.hub,
    logger: ctx.logger,
    listAgents: hub.listAgents,
    defaultFolder: hub.defaultFolder,
    readTerminal: hub.readTerminal,
    setUserRole: roleSetter(hub.users, people),
    secrets: hub.secrets,
    admin: adminServices(ctx, {
      store: hub.users,
      people,
      ledger: hub.hub.ledger,
      baseUrl: () => listening.url,
      ...(hub.listNodes ? { listNodes: hub.listNodes } : {}),
      here: () => ({
        id: listening.nodeId,
        sessions: hub.hub.attachments.sessionCount,
        running: hub.hub.liveTurns,
      }),
    }),
    sessionsPerMinute: limits.sessionsPerMinute,
    maxQueuedMessages: limits.maxQueuedMessages,
    onOpen: metrics.connectionOpened,
    onClose: metrics.connectionClosed,
    quotas: hub.quotas,
  });
  people.onRevoked.push((name) => connector.closeUser(name));
  let server: HubServer;
  let unmark = () => {};
  try {
    server = await startHubServer({
      host: o.host,
      port: o.port,
      token,
      allowOrigins: [...(serve.allowOrigins ?? []), ...(o.allowOrigin ?? [])],
      tls,
      publicUrl: serve.publicUrl,
      allowPlainHttp: o.allowPlainHttp,
      createAgent: connector.agentFor,
      openConnections: () => metrics.openConnections,
      openConnectionsOf: (name) => connector.openBy(name),
      limits,
      trustedProxies: serve.trustedProxies,
      metrics: async () => ({
        contentType: metrics.registry.contentType,
        body: await metrics.registry.metrics(),
      }),
      web: web.routes,
      health: hub.cluster
        ? () => {
            const h = hub.cluster!.health();
            return { ok: h.database, ...h };
          }
        : undefined,
      alsoAccepts: web.alsoAccepts,
      identify: (req) => people.directory.identify(req),
      logger: ctx.logger,
    });
    const url = serve.publicUrl?.replace(/\/+$/, "") ?? server.url;
    web.listening(url);
    people.listening(url);
    listening.url = url;
    listening.nodeId = o.nodeId ?? `${hostname()}:${new URL(server.url).port}`;
    await hub.cluster?.start(listening.nodeId, server.url);
    unmark = markServing(ctx.paths.stateDir, url);
  } catch (error) {
    await hub.close();
    throw listenError(error, o.host, o.port);
  }
  return {
    url: server.url,
    tokenSource: source,
    loginUrl: () => web.routes.loginUrl(),
    close: async () => {
      ctx.logger.info("shutting down");
      server.stopAccepting();
      await drain(ctx, hub);
      await hub
        .close()
        .catch((error: unknown) => ctx.logger.warn({ err: error }, "shutdown"));
      await server.close();
      unmark();
    },
  };
}

// A cluster node stopping lets its running turns end, up to cluster.drainMs; its idle sessions
// are handed over when it leaves (its leases go with it).
async function drain(ctx: AppContext, hub: ServeHub): Promise<void> {
  if (!hub.cluster) return;
  await hub.cluster.drain();
  const until = Date.now() + (ctx.config.cluster?.drainMs ?? DEFAULT_DRAIN_MS);
  while (hub.hub.liveTurns > 0 && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 100));
}

// `_acphub/users/role`'s service: the change (never of the last admin user away from admin, as
// for removal over the hub), then this node's directory reloaded at once (the caller's next
// request sees it; other nodes within their poll).
function roleSetter(store: UserStore, people: ServeUsers) {
  return async (by: Actor, name: unknown, role: unknown) => {
    if (typeof name === "string" && role !== "admin" && isRole(role))
      await keepAnAdmin(store, name, `making them ${String(role)}`);
    const change = await setUserRoleOverHub(store, by, name, role);
    await people.directory.refresh();
    return change;
  };
}
