// A WebSocket to `acphub serve` that comes back: after the hub goes away it reconnects with
// jittered, capped exponential back-off for a bounded time, and reports each new connection
// (a generation) so its owner can re-attach what it had.
import WebSocket from "ws";
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";

export interface HubLinkOptions {
  url: string;
  /** The nodes of a cluster to go round (url is the first): each attempt tries the next. */
  urls?: string[];
  token: string;
  logger: Logger;
  /** Longest wait between attempts. */
  maxBackoffMs?: number;
  /** Give up after the hub has been unreachable this long. */
  reconnectForMs?: number;
  maxFrameBytes?: number;
  onMessage: (message: Record<string, unknown>) => void;
  /** A connection is up (generation 1 is the first). */
  onUp: (generation: number) => void;
  onDown: (reason: string) => void;
  /** The hub stayed unreachable past reconnectForMs, or refused the token. */
  onGiveUp: (error: HubError) => void;
}

export interface HubLink {
  send(message: Record<string, unknown>): boolean;
  readonly up: boolean;
  close(): void;
}

// Opens the link; it keeps itself up until close() or give-up.
export function openHubLink(o: HubLinkOptions): HubLink {
  const maxBackoff = o.maxBackoffMs ?? 5_000;
  const reconnectFor = o.reconnectForMs ?? 5 * 60_000;
  let socket: WebSocket | undefined;
  let generation = 0;
  let attempt = 0;
  let downSince: number | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const urls = o.urls && o.urls.length > 0 ? o.urls : [o.url];
  let next = 0;

  const retry = (reason: string) => {
    if (closed) return;
    downSince ??= Date.now();
    if (Date.now() - downSince > reconnectFor) {
      closed = true;
      o.onGiveUp(
        new HubError(
          "CLOSED",
          `the hub at ${urls.join(", ")} stayed unreachable: ${reason}`,
        ),
      );
      return;
    }
    // With several nodes, a lost node's neighbour is tried at once, back-off once round.
    const round = Math.floor(attempt / urls.length);
    const ceiling =
      attempt % urls.length === 0 ? Math.min(maxBackoff, 100 * 2 ** round) : 20;
    attempt += 1;
    timer = setTimeout(connect, ceiling / 2 + Math.random() * (ceiling / 2));
  };

  const connect = () => {
    const url = urls[next % urls.length] as string;
    next += 1;
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${o.token}` },
      maxPayload: o.maxFrameBytes ?? 64 * 1024 * 1024,
    });
    socket = ws;
    let opened = false;
    ws.on("open", () => {
      opened = true;
      attempt = 0;
      downSince = undefined;
      generation += 1;
      o.onUp(generation);
    });
    ws.on("message", (data: Buffer) => {
      let message: unknown;
      try {
        message = JSON.parse(data.toString("utf8"));
      } catch {
        o.logger.warn("hub sent a frame that is not JSON; ignored");
        return;
      }
      if (message && typeof message === "object" && !Array.isArray(message))
        o.onMessage(message as Record<string, unknown>);
    });
    ws.on("unexpected-response", (_req, res) => {
      res.resume();
      if (res.statusCode === 401 || res.statusCode === 403) {
        closed = true;
        o.onGiveUp(
          new HubError(
            "AUTH_REQUIRED",
            `the hub refused the connection (${res.statusCode}): check the token`,
          ),
        );
      }
      ws.terminate();
    });
    ws.on("error", (error: NodeJS.ErrnoException) => {
      o.logger.debug({ err: error }, "hub link error");
      if (!isCertificateError(error)) return;
      closed = true;
      o.onGiveUp(untrustedCertificate(error));
    });
    ws.on("close", (code, why) => {
      if (socket === ws) socket = undefined;
      const reason = `${code} ${why.toString()}`.trim();
      // A close of our own (the editor left) is no loss of the hub: nothing to warn about.
      if (opened && !closed) o.onDown(reason);
      retry(reason);
    });
  };

  connect();
  return {
    send(message) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
    get up() {
      return socket?.readyState === WebSocket.OPEN;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.close(1000, "shim closing");
    },
  };
}

/** The error for a hub whose TLS certificate this process does not trust: the problem, and how
 *  to trust it (a config error: exit 2). */
export function untrustedCertificate(error: NodeJS.ErrnoException): HubError {
  return new HubError(
    "CONFIG_INVALID",
    `the hub's TLS certificate is not trusted (${error.code}: ${error.message}); for a self-signed hub set NODE_EXTRA_CA_CERTS to its certificate file`,
    { cause: error },
  );
}

// A certificate this client does not accept: retrying cannot help, so the link gives up.
export function isCertificateError(error: NodeJS.ErrnoException): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)/.test(
    error.code ?? "",
  );
}
