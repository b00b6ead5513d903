// `acphub acp`: acphub as an ACP agent on stdin/stdout. Every handler takes params as sent
// (pass-through parsers), hands them to the gateway, and converts errors at this edge.
import { Readable } from "node:stream";
import { agent, RequestError } from "@agentclientprotocol/sdk";
import type { Gateway } from "../gateway/gateway.js";
import { isExtensionMethod, methods } from "../protocol/methods.js";
import { raw, type Params } from "../protocol/raw.js";
import type { Logger } from "../shared/logger.js";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { frameLogger, loggedStream } from "../protocol/frame-log.js";
import { FrameWriter } from "./frame-writer.js";
import { drainOnEof } from "./drain-on-eof.js";
import { guardStdout } from "./stdout-guard.js";
import { toRequestError } from "./to-request-error.js";

async function edge<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toRequestError(error);
  }
}

export interface StdioServerOptions {
  gateway: Gateway;
  logger: Logger;
  maxMessageBytes: number;
}

// Serves until stdin ends or the connection fails; resolves then.
export async function serveStdio({
  gateway,
  logger,
  maxMessageBytes,
}: StdioServerOptions): Promise<void> {
  // One ordered output: the SDK's messages and the frames acphub writes itself (relayed updates).
  const frames = new FrameWriter(guardStdout(logger).write);
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => frames.writeBytes(chunk),
  });
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  const app = agent({ name: "acphub" });
  const m = methods.agent;
  const forward =
    (method: string) => (ctx: { params: Params; signal: AbortSignal }) =>
      edge(() => gateway.forwardSessionRequest(method, ctx.params, ctx.signal));
  app
    .onRequest(m.initialize, raw<Params>, ({ params }) =>
      edge(() => gateway.initialize(params)),
    )
    .onRequest(m.authenticate, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.authenticate(params, signal)),
    )
    .onRequest(m.session.new, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.newSession(params, signal)),
    )
    .onRequest(m.session.load, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.loadSession(params, signal)),
    )
    .onRequest(m.session.list, raw<Params>, ({ params }) =>
      edge(() => gateway.listSessions(params)),
    )
    .onRequest(m.session.resume, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.resumeSession(params, signal)),
    )
    .onRequest(m.session.close, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.closeSession(params, signal)),
    )
    .onRequest(m.session.delete, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.deleteSession(params, signal)),
    )
    .onRequest(m.session.setMode, raw<Params>, forward(m.session.setMode))
    .onRequest(
      m.session.setConfigOption,
      raw<Params>,
      forward(m.session.setConfigOption),
    )
    .onRequest(m.session.prompt, raw<Params>, ({ params, signal }) =>
      edge(() => gateway.prompt(params, signal)),
    )
    .onNotification(m.session.cancel, raw<Params>, ({ params }) =>
      gateway.cancel(params),
    )
    .onRequest("*", ({ method, params, signal }) => {
      if (!isExtensionMethod(method)) throw RequestError.methodNotFound(method);
      return edge(() => gateway.forwardExtension(method, params, signal));
    })
    .onNotification("*", ({ method, params }) => {
      if (isExtensionMethod(method))
        void gateway
          .forwardExtensionNotification(method, params)
          .catch(() => undefined);
    });
  const wire = ndJsonStream(output, input, { maxMessageBytes });
  const connection = app.connect(
    drainOnEof(loggedStream(wire, frameLogger(logger, "editor")), {
      // Nobody is left to read a running turn: cancel it, so that it is answered `cancelled`.
      onEof: (pending) => {
        for (const request of pending) {
          const r = request as { method?: string; params?: Params };
          if (r.method === m.session.prompt && r.params)
            gateway.cancel(r.params);
        }
      },
    }),
  );
  gateway.attachEditor({
    notify: (method, params) => connection.client.notify(method, params),
    writeFrames: (text) => frames.write(text),
    drained: () => frames.drained(),
    request: (method, params, signal) =>
      connection.client.request(method, params, { cancellationSignal: signal }),
  });
  try {
    await connection.closed;
  } catch {
    // the reason is read from the signal below
  }
  const reason: unknown = connection.signal.reason;
  const normal =
    !(reason instanceof Error) ||
    reason.name === "AbortError" ||
    reason.message === "ACP connection closed";
  if (!normal) {
    logger.warn(
      { err: reason.message },
      "editor connection closed with an error",
    );
  } else {
    logger.info("editor connection closed");
  }
}
