// Debug logging of every JSON-RPC frame (`--verbose`, `ACPHUB_LOG=debug`), on either hop.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { Logger } from "../shared/logger.js";

export type FrameLogger = (
  direction: "in" | "out",
  message: AnyMessage,
) => void;

/** A frame logger for `peer` ("agent", "editor"), or undefined when debug logging is off. */
export function frameLogger(
  logger: Logger,
  peer: string,
): FrameLogger | undefined {
  if (!logger.isLevelEnabled("debug")) return undefined;
  return (direction, frame) =>
    logger.debug(
      { peer, direction, frame },
      direction === "in" ? `${peer} →` : `→ ${peer}`,
    );
}

// Wraps an SDK stream so that every message passing through it is logged.
export function loggedStream(
  stream: Stream,
  log: FrameLogger | undefined,
): Stream {
  if (!log) return stream;
  const tap = (direction: "in" | "out") =>
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        log(direction, message);
        controller.enqueue(message);
      },
    });
  const outgoing = tap("out");
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return {
    readable: stream.readable.pipeThrough(tap("in")),
    writable: outgoing.writable,
  };
}
