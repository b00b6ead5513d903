// acphub's own OTLP/HTTP receiver on loopback for the agents it spawns: it accepts only what an
// agent holding one of its tokens sends, attaches each span to its turn (agent-spans.ts) and
// forwards the traces to acphub's configured exporter. Metrics and logs are accepted and dropped.
import { randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../shared/logger.js";
import { AGENT_TOKEN_HEADER } from "./agent-env.js";
import { attachAgentSpans, type AgentLink } from "./agent-spans.js";

/** An export request larger than this is refused (413). */
export const MAX_AGENT_EXPORT_BYTES = 4 * 1024 * 1024;

export interface AgentReceiver {
  /** The base URL agents are given (OTEL_EXPORTER_OTLP_ENDPOINT). */
  endpoint: string;
  /** A new token for one agent process; its spans are attached through `link`. */
  register(link: AgentLink): string;
  /** Forgets a token and what was kept for its process (its process ended): refused after. */
  release(token: string): void;
  /** The tokens accepted now (one per agent process alive; /metrics). */
  readonly tokens: number;
  /** Waits for the forwards under way, then stops listening. */
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Sends one export request (OTLP JSON text) on to acphub's exporter. */
  forward(body: string): Promise<void>;
  logger: Logger;
}

// Reads a request body up to the limit; undefined when it is larger.
async function bodyOf(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_AGENT_EXPORT_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

// Answers with a status and an OTLP-style JSON body.
function reply(res: ServerResponse, status: number, message?: string): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify(message ? { message } : {}));
}

// Starts the receiver on 127.0.0.1, on a port the system picks.
export async function startAgentReceiver(
  o: ReceiverOptions,
): Promise<AgentReceiver> {
  const links = new Map<string, AgentLink>();
  const pending = new Set<Promise<void>>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const link = links.get(String(req.headers[AGENT_TOKEN_HEADER] ?? ""));
    if (req.method !== "POST") return reply(res, 405, "POST only");
    if (!link) return reply(res, 401, "not an agent acphub started");
    const path = (req.url ?? "").split("?")[0];
    if (path === "/v1/metrics" || path === "/v1/logs") {
      req.resume();
      return reply(res, 200);
    }
    if (path !== "/v1/traces") return reply(res, 404, "no such signal");
    if (!String(req.headers["content-type"]).includes("application/json"))
      return reply(res, 415, "acphub takes OTLP/HTTP JSON (http/json)");
    const body = await bodyOf(req);
    if (body === undefined) return reply(res, 413, "export too large");
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return reply(res, 400, "not JSON");
    }
    const sent = o
      .forward(JSON.stringify(attachAgentSpans(link, doc)))
      .catch((error: unknown) =>
        o.logger.warn({ err: error }, "telemetry: an agent's spans not sent"),
      )
      .finally(() => pending.delete(sent));
    pending.add(sent);
    reply(res, 200);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 400, "bad request");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    register: (link) => {
      const token = randomBytes(24).toString("hex");
      links.set(token, link);
      return token;
    },
    release: (token) => {
      links.get(token)?.traces.clear();
      links.delete(token);
    },
    get tokens() {
      return links.size;
    },
    close: async () => {
      await Promise.all([...pending]);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
