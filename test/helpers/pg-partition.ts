// A TCP proxy in front of PostgreSQL that can cut one node off the database: `cut()` drops every
// connection through it and refuses new ones (as a network partition does to that node alone),
// `heal()` lets connections through again.
import { connect, createServer, type Socket } from "node:net";

export interface Partition {
  /** The database URL, through the proxy. */
  url: string;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

/** Starts the proxy for `url` (a postgres:// URL on 127.0.0.1). */
export async function partition(url: string): Promise<Partition> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let cut = false;
  const proxy = createServer((client) => {
    if (cut) return void client.destroy();
    const server = connect(Number(target.port), "127.0.0.1");
    for (const s of [client, server]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(server).on("close", () => client.destroy());
    server.pipe(client).on("close", () => server.destroy());
    client.on("close", () => server.destroy());
    server.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  const through = new URL(url);
  through.port = String(
    typeof address === "object" && address ? address.port : 0,
  );
  return {
    url: through.toString(),
    cut: () => {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    heal: () => void (cut = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
