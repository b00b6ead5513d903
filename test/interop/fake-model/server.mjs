// The fake model server of the interop lab: Anthropic Messages, OpenAI Responses and OpenAI Chat
// Completions on 127.0.0.1, scripted by markers in the prompt (see script.mjs). Node only.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import {
  anthropicRequest,
  anthropicRespond,
  countTokens,
} from "./anthropic.mjs";
import { chatRequest, chatRespond } from "./chat.mjs";
import { responsesRequest, responsesRespond } from "./responses.mjs";
import { plan, replyTokens } from "./script.mjs";
import { toolCallFor } from "./tools.mjs";

/**
 * @typedef {{ method: string, path: string, status: number, key?: string, api?: string, model?: string, context?: string[], tools?: string[], action?: string, error?: string, aborted?: boolean }} LogLine
 *   `aborted`: the client went away before the answer was complete (a cancelled turn).
 *   `model`: the model the agent asked for; `context`: the `[[reply TOKEN]]` tokens of every
 *   prompt in the conversation it sent (which turns the model was given); `key`: the API key the
 *   request carried (`x-api-key`, or `Authorization: Bearer`), to tell whose agent asked.
 * @typedef {{ url: string, port: number, log: LogLine[], unknown: () => LogLine[], close: () => Promise<void> }} FakeModel
 */

const APIS = {
  "/v1/messages": {
    name: "anthropic",
    parse: anthropicRequest,
    respond: anthropicRespond,
  },
  "/v1/responses": {
    name: "responses",
    parse: responsesRequest,
    respond: responsesRespond,
  },
  "/v1/chat/completions": {
    name: "chat",
    parse: chatRequest,
    respond: chatRespond,
  },
};

// Reads a request body as JSON (an empty body is {}).
async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

// The route a path ends with (agents put the API under their own prefixes).
function routeOf(path) {
  const clean = path.split("?")[0] ?? "";
  if (clean.endsWith("/v1/messages/count_tokens")) return "count_tokens";
  if (clean.endsWith("/v1/models") || clean.endsWith("/models"))
    return "models";
  return Object.keys(APIS).find((k) => clean.endsWith(k));
}

// The API key a request carries: Anthropic's header, or OpenAI's bearer token.
function apiKeyOf(headers) {
  const header = headers["x-api-key"];
  if (typeof header === "string") return header;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return bearer?.[1];
}

// One model request: parse it, decide what the script says, answer in the API's shape.
async function answer(req, res, route, line, dump) {
  const body = await readJson(req);
  dump?.({ path: req.url, body });
  if (route === "count_tokens") return countTokens(res, body);
  if (route === "models") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(
      JSON.stringify({
        object: "list",
        data: [
          { id: "fake-model", object: "model", created: 0, owned_by: "acphub" },
        ],
      }),
    );
  }
  const api = APIS[route];
  const { entries, tools } = api.parse(body);
  const next = plan(entries, tools.length > 0);
  const call =
    next.kind === "tool" ? toolCallFor(next.action, tools) : undefined;
  Object.assign(line, {
    api: api.name,
    model: body.model,
    context: replyTokens(entries),
    tools: tools.map((t) => t.name),
    action: call
      ? `${call.name} ${JSON.stringify(call.args)}`
      : next.slow
        ? "slow text"
        : "text",
  });
  await api.respond(res, body, next, call);
}

/**
 * Starts the server on 127.0.0.1 (port 0). `dumpFile` appends every request body as one JSON
 * line (set FAKE_MODEL_DUMP to see what an agent really sends).
 * @param {{ dumpFile?: string, onLog?: (line: LogLine) => void }} [opts]
 * @returns {Promise<FakeModel>}
 */
export async function startFakeModel(opts = {}) {
  const dumpFile = opts.dumpFile ?? process.env.FAKE_MODEL_DUMP;
  const dump = dumpFile
    ? (obj) => appendFileSync(dumpFile, JSON.stringify(obj) + "\n")
    : undefined;
  /** @type {LogLine[]} */
  const log = [];
  const server = createServer((req, res) => {
    const route = routeOf(req.url ?? "");
    /** @type {LogLine} */
    const line = { method: req.method ?? "", path: req.url ?? "", status: 200 };
    const key = apiKeyOf(req.headers);
    if (key) line.key = key;
    log.push(line);
    res.on("close", () => {
      if (!res.writableFinished) line.aborted = true;
    });
    const done = () => opts.onLog?.(line);
    if (!route || (route !== "models" && req.method !== "POST")) {
      line.status = 404;
      process.stderr.write(
        `fake-model: 404 for ${line.method} ${line.path} (an agent called a route the lab does not know)\n`,
      );
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: {
            type: "not_found",
            message: `fake model: no route ${line.method} ${line.path}`,
          },
        }),
      );
      return done();
    }
    answer(req, res, route, line, dump).then(done, (error) => {
      line.status = 500;
      line.error = String(error?.message ?? error);
      process.stderr.write(
        `fake-model: ${line.method} ${line.path} failed: ${line.error}\n`,
      );
      if (!res.headersSent)
        res.writeHead(500, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { type: "api_error", message: line.error } }),
      );
      done();
    });
  });
  await new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(undefined)),
  );
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    unknown: () => log.filter((l) => l.status === 404),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
