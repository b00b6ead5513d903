// A Streamable HTTP client has no socket the hub can watch: it is there while it holds a
// request open (its GET /acp event stream, or a POST being answered). One that has held none
// for the idle timeout — from its initialize on, if it never opens an event stream — has gone
// (crashed, or lost its network, without DELETE): its connection is then closed as a DELETE
// would, so its turns are cancelled under cancelOnDisconnect and it stops counting against the
// limit.
export interface HttpLiveness {
  /** A new connection was given this id (its initialize answered): its clock starts. */
  created(connectionId: string): void;
  /** A request of this connection opened. */
  opened(connectionId: string): void;
  /** One closed; with none left, the connection has `graceMs` to open another. */
  closed(connectionId: string): void;
  /** The client closed the connection itself (DELETE). */
  forget(connectionId: string): void;
  stop(): void;
}

// Counts each connection's open event streams; `drop` closes one that kept none long enough.
export function httpLiveness(
  graceMs: number,
  drop: (connectionId: string) => void,
): HttpLiveness {
  const open = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  const cancelTimer = (id: string) => {
    clearTimeout(timers.get(id));
    timers.delete(id);
  };
  const startTimer = (id: string) => {
    cancelTimer(id);
    const timer = setTimeout(() => {
      timers.delete(id);
      drop(id);
    }, graceMs);
    timer.unref();
    timers.set(id, timer);
  };
  return {
    created(id) {
      if (!open.has(id) && !timers.has(id)) startTimer(id);
    },
    opened(id) {
      cancelTimer(id);
      open.set(id, (open.get(id) ?? 0) + 1);
    },
    closed(id) {
      const left = (open.get(id) ?? 1) - 1;
      if (left > 0) return void open.set(id, left);
      open.delete(id);
      startTimer(id);
    },
    forget(id) {
      cancelTimer(id);
      open.delete(id);
    },
    stop() {
      for (const id of [...timers.keys()]) cancelTimer(id);
      open.clear();
    },
  };
}
