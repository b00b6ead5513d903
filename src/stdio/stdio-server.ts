// `acphub acp`: acphub as an ACP agent on stdin/stdout. The handlers (dispatch.ts) take params
// as sent (pass-through parsers), hand them to the gateway, and convert errors at this edge.
import { Readable } from "node:stream";
import { agent } from "@agentclientprotocol/sdk";
import type { Gateway } from "../engine/gateway.js";
import { methods } from "../protocol/methods.js";
import type { Params } from "../protocol/raw.js";
import type { Logger } from "../shared/logger.js";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { frameLogger, loggedStream } from "../protocol/frame-log.js";
import { FrameWriter } from "./frame-writer.js";
import { drainOnEof } from "./drain-on-eof.js";
import { initializeFirst } from "./initialize-first.js";
import { guardStdout } from "./stdout-guard.js";
import { registerEditorMethods } from "../engine/dispatch.js";

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
  registerEditorMethods(app, gateway);
  const wire = ndJsonStream(output, input, { maxMessageBytes });
  const connection = app.connect(
    drainOnEof(
      initializeFirst(loggedStream(wire, frameLogger(logger, "editor"))),
      {
        // Nobody is left to read a running turn: cancel it, so that it is answered `cancelled`.
        onEof: (pending) => {
          for (const request of pending) {
            const r = request as { method?: string; params?: Params };
            if (r.method === methods.agent.session.prompt && r.params)
              gateway.cancel(r.params);
          }
        },
      },
    ),
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
