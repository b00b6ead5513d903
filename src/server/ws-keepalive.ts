// Pings every WebSocket and drops one that did not answer the previous ping, so a half-open
// connection does not hold its slot (and its sessions' outbound queues) for ever.
import type { WebSocket, WebSocketServer } from "ws";

export function keepAlive(
  wss: WebSocketServer,
  idleTimeoutMs: number,
): () => void {
  const alive = new WeakMap<WebSocket, boolean>();
  const timer = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) ws.on("pong", () => alive.set(ws, true));
      else if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, idleTimeoutMs).unref();
  return () => clearInterval(timer);
}
