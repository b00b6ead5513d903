// A TCP proxy in front of the hub that a test can take down and bring back: the page's
// WebSocket drops (as on a flaky network) while the hub and the other clients carry on.
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  origin: string;
  port: number;
  /** Where to forward (set once the hub listens). */
  target: { host: string; port: number };
  /** A load balancer's targets instead (issue 38): each new connection goes to the next one. */
  targets: { host: string; port: number }[];
  /** How many connections each port was sent. */
  sent: Map<number, number>;
  /** Drops every open connection and refuses new ones. */
  down(): void;
  /** Keeps the connections open but discards what clients send (a link dying unnoticed). */
  stall(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startProxy(): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const clients = new Set<Socket>();
  let isUp = true;
  let next = 0;
  const proxy: TcpProxy = {
    origin: "",
    port: 0,
    target: { host: "127.0.0.1", port: 0 },
    targets: [],
    sent: new Map(),
    down() {
      isUp = false;
      for (const s of open) s.destroy();
      open.clear();
    },
    up() {
      isUp = true;
    },
    stall() {
      for (const c of clients) {
        c.unpipe();
        c.on("data", () => undefined);
      }
    },
    close: () =>
      new Promise((resolve) => {
        proxy.down();
        server.close(() => resolve());
      }),
  };
  const server = createServer((client) => {
    if (!isUp) return client.destroy();
    const to =
      proxy.targets[next++ % (proxy.targets.length || 1)] ?? proxy.target;
    proxy.sent.set(to.port, (proxy.sent.get(to.port) ?? 0) + 1);
    const upstream = connect(to.port, to.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        open.delete(s);
        clients.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    clients.add(client);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.origin = `http://127.0.0.1:${proxy.port}`;
  return proxy;
}
