// Reaching a running `acphub serve` as a client: its /acp URL from what the user typed, the
// token, a bounded first contact, the stdio shim (`acp --hub`, and `run`/`chat --hub` as agent).
import { existsSync } from "node:fs";
import { connect, isIP } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { connectHub, hubLaunch } from "../shim/connect-hub.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import type { AgentConnection } from "../agents/connection.js";
import type { AgentLaunch } from "../agents/registry.js";
import { runHubShim } from "../shim/run.js";
import { isCertificateError, untrustedCertificate } from "../shim/link.js";
import { defaultTokenFile, loadToken } from "../server/token.js";
import { HubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";

export type { AgentConnection, AgentLaunch };

// The hub's /acp WebSocket URL from what the user typed (http(s) or ws(s), with or without /acp).
export function hubAcpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HubError(
      "USAGE",
      `--hub must be a URL, got ${JSON.stringify(raw)}`,
    );
  }
  url.protocol = url.protocol.replace(/^http/, "ws");
  if (!/^wss?:$/.test(url.protocol))
    throw new HubError(
      "USAGE",
      `--hub must be an http(s) or ws(s) URL, got ${raw}`,
    );
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/acp";
  return url.toString();
}

// The token: --token-file, else ACPHUB_TOKEN, else the hub's own file on this machine.
export function hubToken(stateDir: string, tokenFile?: string): string {
  if (!tokenFile && process.env["ACPHUB_TOKEN"] === undefined) {
    const own = defaultTokenFile(stateDir);
    if (!existsSync(own))
      throw new HubError(
        "CONFIG_INVALID",
        `no token: give --token-file or ACPHUB_TOKEN (the hub on this machine keeps it in ${own})`,
      );
  }
  return loadToken({ stateDir, tokenFile }).token;
}

/** `--hub URL1,URL2,…`: the nodes of a cluster, each as its /acp WebSocket URL. */
export function hubAcpUrls(raw: string): string[] {
  const urls = raw
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean)
    .map(hubAcpUrl);
  if (urls.length === 0)
    throw new HubError("USAGE", "--hub needs at least one URL");
  return urls;
}

/** `--hub URL [--token-file F]` of run and chat: the shim to that hub, as the agent to launch. */
export function hubAgentLaunch(
  stateDir: string,
  url: string,
  tokenFile?: string,
): AgentLaunch {
  return hubLaunch(hubAcpUrls(url).join(","), hubToken(stateDir, tokenFile));
}

// Something listens at the hub's address within `ms` (for wss, with a TLS certificate this
// process trusts), else a TIMEOUT error (exit 3) saying the hub is unreachable, or the untrusted
// certificate's config error (exit 2): run and chat say so at once, in their own words, instead
// of waiting on the shim's reconnect window or reporting how the shim process ended.
export async function reachHub(url: string, ms: number): Promise<void> {
  const u = new URL(url);
  const secure = u.protocol === "wss:";
  const port = Number(u.port || (secure ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, "");
  await new Promise<void>((resolve, reject) => {
    const socket = secure
      ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host })
      : connect({ host, port });
    const fail = (error: HubError) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const unreachable = (reason: string) =>
      fail(
        new HubError("TIMEOUT", `the hub at ${url} is unreachable: ${reason}`),
      );
    const timer = setTimeout(
      () => unreachable(`no answer within ${ms / 1000} s`),
      ms,
    );
    socket.once(secure ? "secureConnect" : "connect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once("error", (error: NodeJS.ErrnoException) =>
      isCertificateError(error)
        ? fail(untrustedCertificate(error))
        : unreachable(error.code ?? error.message),
    );
  });
}

// `acphub acp --hub URL1,URL2,…`: the editor's stdio relayed to the hub until the editor leaves.
export async function runShimTo(
  ctx: AppContext,
  hub: string,
  tokenFile: string | undefined,
): Promise<void> {
  const urls = hubAcpUrls(hub);
  await runHubShim({
    url: urls[0] as string,
    urls,
    token: hubToken(ctx.paths.stateDir, tokenFile),
    logger: ctx.logger,
    maxMessageBytes:
      ctx.config.limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
  });
}

// The shim to the hub as the agent to launch, once something answers at the hub's address
// within `waitMs`: an unreachable hub is a TIMEOUT error at once.
export async function reachedHubLaunch(
  stateDir: string,
  hub: string,
  tokenFile: string | undefined,
  waitMs: number,
): Promise<AgentLaunch> {
  const launch = hubAgentLaunch(stateDir, hub, tokenFile);
  await reachHub(hubAcpUrl(hub), waitMs);
  return launch;
}

// A client connection to the hub (reached, then connected, each within `waitMs`).
export async function connectToHub(
  ctx: AppContext,
  hub: string,
  tokenFile: string | undefined,
  waitMs: number,
): Promise<AgentConnection> {
  const url = hubAcpUrl(hub);
  await reachHub(url, waitMs);
  return connectHub(url, {
    token: hubToken(ctx.paths.stateDir, tokenFile),
    logger: ctx.logger,
    signal: AbortSignal.timeout(waitMs),
  });
}
