// A TCP proxy in front of PostgreSQL that can cut one node off the database: `cut()` drops every
// connection through it and refuses new ones; `stallMidBatch()` waits until a ledger batch has
// been sent, then passes nothing more either way on any connection, leaving them open (a
// partition: no FIN, no RST; the batch commits on the server, its writer never hears so);
// `heal()` drops what was stalled and lets new connections through; `dropNotifications(lost)`
// passes on no notification (LISTEN) that `lost` picks, as if its connection had been lost;
// `counting(text)` counts the queries that hold `text`; `delayReply(text, ms)` holds one's answer.
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
  /** From now on, the notifications (channel, payload) that `lost` picks never arrive. */
  dropNotifications(lost: (channel: string, payload: string) => boolean): void;
  /** From now on, counts what the clients send that holds `text` (a query's); the count so far. */
  counting(text: string): () => number;
  /** The next query that holds `text`: its connection's replies held for `ms` (its snapshot is
   *  taken, its answer comes late); resolves once it was sent. */
  delayReply(text: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** What the server says, as whole protocol messages (a type byte, then a length that counts itself). */
function messagesOf(): (chunk: Buffer) => Buffer[] {
  let rest = Buffer.alloc(0);
  return (chunk) => {
    rest = Buffer.concat([rest, chunk]);
    const whole: Buffer[] = [];
    while (rest.length >= 5 && rest.length >= 1 + rest.readInt32BE(1)) {
      const end = 1 + rest.readInt32BE(1);
      whole.push(rest.subarray(0, end));
      rest = rest.subarray(end);
    }
    return whole;
  };
}

// A NotificationResponse ('A': pid, channel, payload), as channel and payload; else undefined.
function notificationOf(m: Buffer): [string, string] | undefined {
  if (m[0] !== 0x41) return undefined;
  const [channel = "", payload = ""] = m.subarray(9).toString().split("\0");
  return [channel, payload];
}

// How many times `text` occurs in `chunk`.
function times(chunk: Buffer, text: string): number {
  let n = 0;
  for (let at = chunk.indexOf(text); at >= 0; at = chunk.indexOf(text, at + 1))
    n++;
  return n;
}

/** Starts the proxy for `url` (a postgres:// URL on 127.0.0.1). */
export async function partition(url: string): Promise<Partition> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const state = { cut: false, armed: false, stalled: false };
  let lost: ((channel: string, payload: string) => boolean) | undefined;
  const counted = new Map<string, number>();
  let delay: { text: string; ms: number; sent: () => void } | undefined;
  const proxy = createServer((client) => {
    if (state.cut || state.stalled) return void client.destroy();
    const server = connect(Number(target.port), "127.0.0.1");
    for (const s of [client, server]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    let held: Buffer[] | undefined;
    client.on("data", (chunk: Buffer) => {
      if (state.stalled) return;
      server.write(chunk);
      for (const [text, n] of counted)
        counted.set(text, n + times(chunk, text));
      if (state.armed && chunk.includes(BATCH)) state.stalled = true;
      if (delay && chunk.includes(delay.text)) {
        const { ms, sent } = delay;
        delay = undefined;
        held = [];
        setTimeout(() => {
          for (const reply of held ?? []) client.write(reply);
          held = undefined;
        }, ms);
        sent();
      }
    });
    const split = messagesOf();
    server.on("data", (chunk: Buffer) => {
      if (state.stalled) return;
      const kept = split(chunk).filter((m) => {
        const note = notificationOf(m);
        return !(note && lost?.(...note));
      });
      if (kept.length === 0) return;
      if (held) held.push(Buffer.concat(kept));
      else client.write(Buffer.concat(kept));
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
    dropNotifications: (pick) => void (lost = pick),
    counting: (text) => {
      counted.set(text, 0);
      return () => counted.get(text) ?? 0;
    },
    delayReply: (text, ms) =>
      new Promise<void>((sent) => void (delay = { text, ms, sent })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
