// Following sessions written by other acphub processes: one connection LISTENs on the ledger's
// channel and passes each committed batch (session id, last seq) to the local followers.
import pg from "pg";
import type { Logger } from "../../shared/logger.js";
import type { Followers } from "../followers.js";
import { CHANNEL } from "./pg-batch.js";

export class PgListener {
  private client: pg.Client | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly instance: string,
    private readonly followers: Followers,
    private readonly logger: Logger,
  ) {}

  /** Starts listening (once); a lost connection is re-opened while anyone follows. */
  start(): Promise<void> {
    this.starting ??= this.connect().catch((error: unknown) => {
      this.starting = undefined;
      this.logger.warn({ err: error }, "ledger: LISTEN connection failed");
    });
    return this.starting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => this.deliver(message.payload));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
  }

  // Passes on what another process committed (this process's own batches are told directly).
  private deliver(payload: string | undefined): void {
    try {
      const [instance, id, seq] = JSON.parse(payload ?? "") as [
        string,
        string,
        number,
      ];
      if (instance !== this.instance) this.followers.emit(id, seq);
    } catch {
      this.logger.warn({ payload }, "ledger: unreadable notification");
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.starting = undefined;
    if (!this.closed) setTimeout(() => void this.start(), 500).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
