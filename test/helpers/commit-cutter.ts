// A TCP proxy in front of PostgreSQL that can lose a connection at the worst moment: after the
// server has committed a ledger batch, before the client hears so (an ambiguous COMMIT).
import { connect, createServer, type Socket } from "node:net";

/** A ledger batch is one call of this function (src/ledger/postgres/pg-batch.ts), named so in
 * both the statement's text and, once prepared, the name each execution binds. */
const BATCH = Buffer.from("acphub_write_batch");
/** ReadyForQuery ('Z', length 5): the server has finished the statement, commit included. */
const READY = Buffer.from([0x5a, 0, 0, 0, 5]);

export interface CommitCutter {
  /** The database URL, through the proxy. */
  url: string;
  /** The next batch reaches the server and commits; its answer is dropped, the connection cut. */
  cutAfterNextCommit(): void;
  /** How many connections were cut so. */
  readonly cuts: number;
  close(): Promise<void>;
}

// Pipes one client to the server, cutting both ends once an armed batch has been committed.
function pipe(
  client: Socket,
  port: number,
  cutter: { armed: boolean; cuts: number },
) {
  const server = connect(port, "127.0.0.1");
  let committing = false;
  const cut = () => {
    client.destroy();
    server.destroy();
  };
  client.on("data", (chunk: Buffer) => {
    if (cutter.armed && chunk.includes(BATCH)) {
      cutter.armed = false;
      committing = true;
    }
    server.write(chunk);
  });
  server.on("data", (chunk: Buffer) => {
    if (!committing) return void client.write(chunk);
    // Nothing of the answer passes; the cut waits until the server is done with the statement.
    if (!chunk.includes(READY)) return;
    cutter.cuts += 1;
    cut();
  });
  client.on("error", cut).on("close", cut);
  server.on("error", cut).on("close", cut);
}

/** Starts the proxy for `url` (a postgres:// URL on 127.0.0.1). */
export async function commitCutter(url: string): Promise<CommitCutter> {
  const target = new URL(url);
  const state = { armed: false, cuts: 0 };
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    pipe(client, Number(target.port), state);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  const through = new URL(url);
  through.port = String(
    typeof address === "object" && address ? address.port : 0,
  );
  return {
    url: through.toString(),
    cutAfterNextCommit: () => void (state.armed = true),
    get cuts() {
      return state.cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
