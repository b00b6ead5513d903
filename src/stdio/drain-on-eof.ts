// `echo '{…initialize…}' | acphub acp`: when the editor's input ends, the requests it already
// sent are still answered (up to a bound) before the connection closes, instead of being
// dropped with the connection.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

/** How long answers to requests received before stdin ended are waited for. */
export const DRAIN_ON_EOF_MS = 30_000;

export type Id = string | number;

/** The id of a request (a message with a method and an id), else undefined. */
export function requestId(message: AnyMessage): Id | undefined {
  const m = message as { id?: unknown; method?: unknown };
  return typeof m.method === "string" &&
    (typeof m.id === "string" || typeof m.id === "number")
    ? m.id
    : undefined;
}

/** The id of a response (an id without a method), else undefined. */
export function responseId(message: AnyMessage): Id | undefined {
  const m = message as { id?: unknown; method?: unknown };
  return m.method === undefined &&
    (typeof m.id === "string" || typeof m.id === "number")
    ? m.id
    : undefined;
}

export interface DrainOptions {
  maxWaitMs?: number;
  /** Told the requests still unanswered when the input ends (to cancel running turns). */
  onEof?: (pending: AnyMessage[]) => void;
}

// Wraps the editor stream: its end is held back until every request received has been
// answered, or `maxWaitMs` has passed (then the connection closes as before).
export function drainOnEof(stream: Stream, options: DrainOptions = {}): Stream {
  const maxWaitMs = options.maxWaitMs ?? DRAIN_ON_EOF_MS;
  const pending = new Map<Id, AnyMessage>();
  let drained: (() => void) | undefined;
  const incoming = new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      const id = requestId(message);
      if (id !== undefined) pending.set(id, message);
      controller.enqueue(message);
    },
    flush: () =>
      new Promise<void>((resolve) => {
        if (pending.size === 0) return resolve();
        options.onEof?.([...pending.values()]);
        const timer = setTimeout(resolve, maxWaitMs);
        timer.unref();
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
  });
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      controller.enqueue(message);
      const id = responseId(message);
      if (id !== undefined && pending.delete(id) && pending.size === 0)
        drained?.();
    },
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return {
    readable: stream.readable.pipeThrough(incoming),
    writable: outgoing.writable,
  };
}
