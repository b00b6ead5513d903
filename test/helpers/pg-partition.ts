// A TCP proxy in front of PostgreSQL that can cut one node off the database: `cut()` drops every
// connection through it and refuses new ones; `stallMidBatch()` waits until a ledger batch has
// been sent, then passes nothing more either way on any connection, leaving them open (a
// partition: no FIN, no RST; the batch commits on the server, its writer never hears so);
// `heal()` drops what was stalled and lets new connections through; `dropNotifications(lost)`
// passes on no notification (LISTEN) that `lost` picks, as if its connection had been lost;
// `counting(text)` counts the queries that hold `text`; `delayReply(text, ms)` holds one's answer
// for a time, `holdReply(text)` until released; `failReply(text)` answers one with an error.
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
  /** As `delayReply`, until the function it resolves with is called. */
  holdReply(text: string): Promise<() => void>;
  /** The next query that holds `text`: the server's answer to it is replaced by an error
   *  (QUERY_FAILED: one the client does not retry, not a lost connection's); resolves once
   *  that query was sent. */
  failReply(text: string): Promise<void>;
  close(): Promise<void>;
}

/** The error `failReply` answers with: a statement cancelled (as a statement_timeout gives). */
export const QUERY_FAILED = "57014";

// An ErrorResponse ('E': severity, code, message), as a server sends it.
function errorReply(message: string): Buffer {
  const fields = Buffer.from(
    `SERROR\0VERROR\0C${QUERY_FAILED}\0M${message}\0\0`,
  );
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
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
  let hold: { text: string; sent: (release: () => void) => void } | undefined;
  let failing: { text: string; sent: () => void } | undefined;
  const proxy = createServer((client) => {
    if (state.cut || state.stalled) return void client.destroy();
    const server = connect(Number(target.port), "127.0.0.1");
    for (const s of [client, server]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    let held: Buffer[] | undefined;
    // This connection's query whose answer is being replaced (until its ReadyForQuery).
    let failed = false;
    client.on("data", (chunk: Buffer) => {
      if (state.stalled) return;
      server.write(chunk);
      for (const [text, n] of counted)
        counted.set(text, n + times(chunk, text));
      if (state.armed && chunk.includes(BATCH)) state.stalled = true;
      if (hold && chunk.includes(hold.text)) {
        const { sent } = hold;
        hold = undefined;
        held = [];
        sent(() => {
          for (const reply of held ?? []) client.write(reply);
          held = undefined;
        });
      }
      if (failing && chunk.includes(failing.text)) {
        const { sent } = failing;
        failing = undefined;
        failed = true;
        sent();
      }
    });
    const split = messagesOf();
    server.on("data", (chunk: Buffer) => {
      if (state.stalled) return;
      const kept = split(chunk).flatMap((m) => {
        const note = notificationOf(m);
        if (note && lost?.(...note)) return [];
        if (!failed || note) return [m];
        // The query's own replies go; at its end (ReadyForQuery) the error comes instead.
        if (m[0] !== 0x5a) return [];
        failed = false;
        return [errorReply("canceled by the test's proxy (failReply)"), m];
      });
      if (kept.length === 0) return;
      if (held) held.push(Buffer.concat(kept));
      else client.write(Buffer.concat(kept));
    });
    // While stalled a closed end is not passed on: the other side hears nothing.
    client.on("close", () => state.stalled || server.destroy());
    server.on("close", () => state.stalled || client.destroy());
  });
  const holdReply = (text: string) =>
    new Promise<() => void>((sent) => void (hold = { text, sent }));
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
    delayReply: async (text, ms) => {
      const release = await holdReply(text);
      setTimeout(release, ms);
    },
    holdReply,
    failReply: (text) =>
      new Promise<void>((sent) => void (failing = { text, sent })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
