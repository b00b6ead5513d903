// A TCP proxy in front of PostgreSQL that can cut one node off the database: `cut()` drops every
// connection through it and refuses new ones; `stallMidBatch()` waits until a ledger batch has
// been sent, then passes nothing more either way on any connection, leaving them open (a
// partition: no FIN, no RST; the batch commits on the server, its writer never hears so);
// `heal()` drops what was stalled and lets new connections through.
import { connect, createServer, type Socket } from "node:net";

/** A ledger batch's call (src/ledger/postgres/pg-batch.ts): in its text and, once prepared,
 * in the name each execution binds. */
const BATCH = "acphub_write_batch";

export interface Partition {
  /** The database URL, through the proxy. */
  url: string;
  cut(): void;
  stallMidBatch(): void;
  /** True once a stall has begun. */
  readonly stalled: boolean;
  heal(): void;
  close(): Promise<void>;
}

/** Starts the proxy for `url` (a postgres:// URL on 127.0.0.1). */
export async function partition(url: string): Promise<Partition> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const state = { cut: false, armed: false, stalled: false };
  const proxy = createServer((client) => {
    if (state.cut || state.stalled) return void client.destroy();
    const server = connect(Number(target.port), "127.0.0.1");
    for (const s of [client, server]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.on("data", (chunk: Buffer) => {
      if (state.stalled) return;
      server.write(chunk);
      if (state.armed && chunk.includes(BATCH)) state.stalled = true;
    });
    server.on("data", (chunk: Buffer) => {
      if (!state.stalled) client.write(chunk);
    });
    // While stalled a closed end is not passed on: the other side hears nothing.
    client.on("close", () => state.stalled || server.destroy());
    server.on("close", () => state.stalled || client.destroy());
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
      state.cut = true;
      for (const socket of sockets) socket.destroy();
    },
    stallMidBatch: () => void (state.armed = true),
    get stalled() {
      return state.stalled;
    },
    heal: () => {
      if (state.stalled) for (const socket of sockets) socket.destroy();
      Object.assign(state, { cut: false, armed: false, stalled: false });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
