// The one LISTEN connection of a process on the PostgreSQL ledger: the ledger's own channel
// (committed batches, for followers) and the cluster's share it. Lost for any reason (a server
// restart, a killed backend, a network cut), it is opened again with a back-off for as long as
// the ledger is open, every channel is listened again, and each channel's `reconnected` is
// called: a notification sent while no connection listened is gone, so its readers catch up.
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { HubError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logger.js";

/** The first wait before opening a lost connection again (ms); doubled up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;
/** TCP keepalive on the idle LISTEN connection: a cut network is noticed, not waited out. */
const KEEPALIVE_MS = 10_000;
/** How a channel may be named (it is spliced into LISTEN, which takes no parameters). */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

interface Channel {
  messages: Set<(payload: string) => void>;
  reconnected: Set<() => void>;
}

export class PgListener {
  private readonly channels = new Map<string, Channel>();
  private client: pg.Client | undefined;
  /** Resolved each time a connection listens on every channel. */
  private waiting: (() => void)[] = [];
  private running = false;
  private closed = false;
  private readonly stopSleep = new AbortController();

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  /** Hears `channel`; resolves once a connection listens on it. Returns the stop function. */
  async listen(
    name: string,
    onMessage: (payload: string) => void,
    reconnected?: () => void,
  ): Promise<() => void> {
    if (!CHANNEL_NAME.test(name))
      throw new HubError(
        "USAGE",
        `not a channel name: ${JSON.stringify(name)}`,
      );
    let channel = this.channels.get(name);
    if (!channel)
      this.channels.set(
        name,
        (channel = { messages: new Set(), reconnected: new Set() }),
      );
    const entry = channel;
    entry.messages.add(onMessage);
    if (reconnected) entry.reconnected.add(reconnected);
    const stop = () => {
      entry.messages.delete(onMessage);
      if (reconnected) entry.reconnected.delete(reconnected);
    };
    if (this.closed) return stop;
    const client = this.client;
    if (client) {
      // LISTEN twice is harmless; a failure here is the connection's loss, handled by the loop.
      await client.query(`LISTEN ${name}`).catch(() => this.connected());
      return stop;
    }
    const ready = this.connected();
    if (!this.running) void this.run();
    await ready;
    return stop;
  }

  // Resolves when the next connection listens on every channel (or the listener closes).
  private connected(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  // The loop: connect, listen, wait for the loss, back off, again, until closed.
  private async run(): Promise<void> {
    this.running = true;
    let backoff = FIRST_BACKOFF_MS;
    let lost = false;
    while (!this.closed) {
      const client = this.newClient();
      const gone = new Promise<void>((resolve) => {
        client.on("error", () => resolve());
        client.on("end", () => resolve());
      });
      try {
        await client.connect();
        await this.listenAll(client);
        if (this.closed) continue; // closed meanwhile: the connection ends below
        this.client = client;
        backoff = FIRST_BACKOFF_MS;
        if (lost) this.logger.info("ledger: LISTEN connection open again");
        this.opened(lost);
        lost = true;
        await gone;
        if (!this.closed)
          this.logger.warn("ledger: LISTEN connection lost; opening it again");
      } catch (error) {
        if (!this.closed)
          this.logger.warn(
            { err: error, retryInMs: backoff },
            "ledger: LISTEN connection failed; trying again",
          );
        lost = true;
      } finally {
        if (this.client === client) this.client = undefined;
        void client.end().catch(() => undefined);
      }
      if (this.closed) break;
      await sleep(backoff, undefined, {
        signal: this.stopSleep.signal,
        ref: false,
      }).catch(() => undefined);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
    this.running = false;
    this.release();
  }

  // LISTENs on every channel, those added meanwhile too: none is missed when the client is set.
  private async listenAll(client: pg.Client): Promise<void> {
    const heard = new Set<string>();
    for (;;) {
      const missing = [...this.channels.keys()].filter((n) => !heard.has(n));
      if (missing.length === 0) return;
      for (const name of missing) {
        await client.query(`LISTEN ${name}`);
        heard.add(name);
      }
    }
  }

  // A LISTEN client that cannot crash the process with an unhandled error event.
  private newClient(): pg.Client {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_MS,
    });
    client.on("notification", (m) => this.deliver(m.channel, m.payload));
    return client;
  }

  // Every channel is heard now: waiters go on; after a loss, every reader catches up.
  private opened(again: boolean): void {
    this.release();
    if (!again) return;
    for (const channel of this.channels.values())
      for (const caughtUp of channel.reconnected) this.safely(caughtUp);
  }

  private release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private deliver(name: string, payload: string | undefined): void {
    for (const onMessage of this.channels.get(name)?.messages ?? [])
      this.safely(() => onMessage(payload ?? ""));
  }

  // A reader's error stays its own: never the loop's.
  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.warn({ err: error }, "ledger: notification reader failed");
    }
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopSleep.abort();
    const client = this.client;
    this.client = undefined;
    this.release();
    await client?.end().catch(() => undefined);
  }
}
