// `initialize` and `session/new` in one write (as some editors and scripts send them): the SDK
// runs request handlers concurrently, so a request right behind initialize could find the
// gateway not yet initialized. What arrives while an initialize is unanswered waits, in arrival
// order, until that answer has gone out.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { requestId, responseId, type Id } from "./drain-on-eof.js";

// Wraps the editor stream so that nothing after an initialize request is read before its answer.
export function initializeFirst(stream: Stream): Stream {
  let waiting: { id: Id; release: () => void } | undefined;
  const release = () => {
    waiting?.release();
    waiting = undefined;
  };
  const incoming = new TransformStream<AnyMessage, AnyMessage>({
    async transform(message, controller) {
      const id = requestId(message);
      const isInitialize =
        id !== undefined &&
        (message as { method?: unknown }).method === methods.agent.initialize;
      if (!isInitialize) return controller.enqueue(message);
      const answered = new Promise<void>((resolve) => {
        waiting = { id, release: resolve };
      });
      controller.enqueue(message);
      await answered;
    },
  });
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      controller.enqueue(message);
      if (waiting && responseId(message) === waiting.id) release();
    },
    // The connection is closing: nothing will answer, hold nothing back.
    flush: release,
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return {
    readable: stream.readable.pipeThrough(incoming),
    writable: outgoing.writable,
  };
}
