// `acphub serve`: the hub as a long-running network service. ACP over WebSocket and
// Streamable HTTP on /acp, bearer token on every request, one session hub shared by all.
import { hubConnector } from "../server/connection.js";
import { startHubServer, type HubServer } from "../server/http-server.js";
import { DEFAULT_SERVER_LIMITS } from "../server/limits.js";
import { createMetrics } from "../server/metrics.js";
import { loadTlsFiles } from "../server/tls.js";
import { loadToken } from "../server/token.js";
import { HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { AppContext } from "../config/context.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { openServeHub, type ServeHub } from "../app/serve-hub.js";
import { DEFAULT_DRAIN_MS } from "../cluster/index.js";
import { hostname } from "node:os";
import { serveWeb, type ServeWeb } from "../app/serve-web.js";
import { serveUsers } from "../app/serve-users.js";
import { Quotas } from "../hub/quotas.js";

export interface ServeOptions extends GlobalOptions {
  host?: string;
  port?: string;
  agent?: string;
  tokenFile?: string;
  allowOrigin?: string[];
  tlsCert?: string;
  tlsKey?: string;
  allowPlainHttp?: boolean;
  json?: boolean;
  nodeId?: string;
}

const out = (text: string) => process.stdout.write(text);

function portOf(value: string | undefined): number {
  const port = Number(value ?? "8787");
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new HubError("USAGE", `--port must be 0–65535, got ${value}`);
  return port;
}

// A listen error people can act on: a port in use or not allowed is a setup problem (exit 2).
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE")
    return new HubError(
      "USAGE",
      `port ${port} on ${host} is already in use: pick another with --port N, or --port 0 for a free one`,
      { cause: error },
    );
  if (code === "EACCES")
    return new HubError(
      "USAGE",
      `not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges): pick another with --port N, or --port 0 for a free one`,
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

function tlsOf(o: ServeOptions): { cert: Buffer; key: Buffer } | undefined {
  if (!o.tlsCert && !o.tlsKey) return undefined;
  if (!o.tlsCert || !o.tlsKey)
    throw new HubError("USAGE", "--tls-cert and --tls-key go together");
  return loadTlsFiles(o.tlsCert, o.tlsKey);
}

// Starts the hub and its server; the caller stops both on a signal.
async function start(
  ctx: AppContext,
  o: ServeOptions,
): Promise<{
  server: HubServer;
  hub: ServeHub;
  tokenSource: string;
  web: ServeWeb;
  stopUsers: () => void;
}> {
  const serve = ctx.config.serve ?? {};
  const host = o.host ?? "127.0.0.1";
  const port = portOf(o.port);
  const { token, source } = loadToken({
    stateDir: ctx.paths.stateDir,
    tokenFile: o.tokenFile,
  });
  let liveSessions = () => 0;
  const metrics = createMetrics(() => liveSessions());
  const hub = await openServeHub(
    ctx,
    o.agent,
    metrics,
    serve.cancelOnDisconnect ?? false,
    { tokenFile: o.tokenFile, tlsCert: o.tlsCert, tlsKey: o.tlsKey },
  );
  liveSessions = () => hub.hub.attachments.sessionCount;
  const limits = { ...DEFAULT_SERVER_LIMITS, ...serve };
  const tls = tlsOf(o);
  const users = await serveUsers(ctx, token, hub.users);
  hub.hub.authorOf = users.authorOf;
  const web = serveWeb(ctx.paths.stateDir, tls !== undefined, {
    store: hub.users,
    serve: users,
  });
  const connector = hubConnector({
    hub: hub.hub,
    logger: ctx.logger,
    listAgents: hub.listAgents,
    defaultFolder: hub.defaultFolder,
    readTerminal: hub.readTerminal,
    sessionsPerMinute: limits.sessionsPerMinute,
    maxQueuedMessages: limits.maxQueuedMessages,
    onOpen: metrics.connectionOpened,
    onClose: metrics.connectionClosed,
    quotas: new Quotas({
      ...ctx.config.users,
      stored: (name) => users.directory.limitsOf(name),
    }),
  });
  users.onRevoked.push((name) => connector.closeUser(name));
  try {
    const server = await startHubServer({
      host,
      port,
      token,
      allowOrigins: [...(serve.allowOrigins ?? []), ...(o.allowOrigin ?? [])],
      tls,
      publicUrl: serve.publicUrl,
      allowPlainHttp: o.allowPlainHttp,
      createAgent: connector.agentFor,
      openConnections: () => metrics.openConnections,
      openConnectionsOf: (name) => connector.openBy(name),
      limits,
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
      identify: (req) => users.directory.identify(req),
      logger: ctx.logger,
    });
    const url = serve.publicUrl?.replace(/\/+$/, "") ?? server.url;
    web.listening(url);
    users.listening(url);
    const stopUsers = () => users.directory.stop();
    await hub.cluster?.start(
      o.nodeId ?? `${hostname()}:${new URL(server.url).port}`,
      server.url,
    );
    return { server, hub, tokenSource: source, web, stopUsers };
  } catch (error) {
    users.directory.stop();
    await hub.close();
    throw listenError(error, host, port);
  }
}

export async function serveCommand(o: ServeOptions): Promise<ExitCode> {
  let ctx: AppContext;
  let started;
  try {
    ctx = cliContext(o);
    started = await start(ctx, o);
  } catch (error) {
    return fail(error);
  }
  const { server, hub, tokenSource, web, stopUsers } = started;
  const loginUrl = web.routes.loginUrl();
  if (o.json) {
    out(
      `${JSON.stringify({ event: "listening", url: server.url, pid: process.pid, tokenFrom: tokenSource, loginUrl })}\n`,
    );
  } else {
    out(
      `acphub serve listening on ${server.url} (ACP on ${server.url}/acp, WebSocket or Streamable HTTP)\n` +
        `Web page (this link logs one browser in, once): ${loginUrl}\n` +
        `Clients send "Authorization: Bearer <token>"; the token is in ${tokenSource}.\n` +
        `Editors: acphub acp --hub ${server.url.replace(/^http/, "ws")}/acp\n`,
    );
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  ctx.logger.info("shutting down");
  server.stopAccepting();
  await drain(ctx, hub);
  stopUsers();
  await hub
    .close()
    .catch((error: unknown) => ctx.logger.warn({ err: error }, "shutdown"));
  await server.close();
  if (o.json) out(`${JSON.stringify({ event: "stopped" })}\n`);
  return EXIT_CODES.ok;
}

// A cluster node stopping lets its running turns end, up to cluster.drainMs; its idle sessions
// are handed over when it leaves (its leases go with it).
async function drain(ctx: AppContext, hub: ServeHub): Promise<void> {
  if (!hub.cluster) return;
  const until = Date.now() + (ctx.config.cluster?.drainMs ?? DEFAULT_DRAIN_MS);
  while (hub.hub.liveTurns > 0 && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 100));
}
