// This `acphub serve` as a node of a cluster on one PostgreSQL ledger: its row in acphub_nodes
// kept fresh by a heartbeat, the leases of the sessions whose agents it runs (renewed with the
// heartbeat, lost ones dropped here), and cancels relayed to a session's runner by NOTIFY. A lease
// not renewed within leaseMs (the database unreachable) is given up here at once: its turn is
// cancelled, as another node may take the session over from then on (fencing; the ledger also
// refuses this node's writes for a session another node holds).
import pg from "pg";
import type { Logger } from "../shared/logger.js";
import type { Claim, SessionRunner } from "../hub/runner.js";
import {
  claimLease,
  heartbeat,
  holderOf,
  leaveCluster,
  registerNode,
} from "./leases.js";

export const DEFAULT_LEASE_MS = 10_000;
export const DEFAULT_DRAIN_MS = 30_000;
const CHANNEL = "acphub_cluster";

export interface ClusterOptions {
  url: string;
  leaseMs?: number;
  heartbeatMs?: number;
  logger: Logger;
  /** Called with the node's id when it joins: the ledger fences this node's writes by it. */
  fenceAs?: (nodeId: string) => void;
}

export interface ClusterHooks {
  /** Another node took a session this node ran, or its lease lapsed unrenewed: stop running it. */
  lost(sessionId: string): void;
  /** Another node asks this one to cancel the session's turn. */
  cancel(sessionId: string): void;
  /** A client here attached to a session (to follow what other nodes run). */
  attached(sessionId: string): void;
  /** Each heartbeat: catch up what a missed notification did not tell. */
  tick(): void;
}

export class ClusterNode implements SessionRunner {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private id = "";
  private held = new Set<string>();
  /** Until when (this machine's clock) each held lease surely has not lapsed on the database's. */
  private readonly validUntil = new Map<string, number>();
  private fenceTimer: NodeJS.Timeout | undefined;
  private lastBeat = 0;
  private stopped = false;
  private ready: Promise<void>;
  private readyNow!: () => void;
  hooks: ClusterHooks | undefined;

  constructor(private readonly options: ClusterOptions) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs =
      options.heartbeatMs ?? Math.max(200, Math.floor(this.leaseMs / 4));
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: 2,
      connectionTimeoutMillis: 5000,
      // A claim's transaction holds the session's row: not for longer when this node is cut off.
      idle_in_transaction_session_timeout: 5000,
    });
    this.pool.on("error", (e) =>
      options.logger.warn({ err: e.message }, "cluster: connection lost"),
    );
    this.ready = new Promise((resolve) => (this.readyNow = resolve));
  }

  get nodeId(): string {
    return this.id;
  }

  /** Joins the cluster once the server listens (its URL and default id known). */
  async start(nodeId: string, url: string): Promise<void> {
    this.id = nodeId;
    this.options.fenceAs?.(nodeId);
    await registerNode(this.pool, nodeId, url);
    this.lastBeat = Date.now();
    await this.listen();
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
    const check = Math.max(50, Math.min(500, this.heartbeatMs / 2));
    this.fenceTimer = setInterval(() => this.fence(), check);
    this.fenceTimer.unref();
    this.readyNow();
  }

  // One heartbeat: renew; sessions whose leases another node took are dropped here.
  private async beat(): Promise<void> {
    const sent = Date.now();
    const before = new Map(this.validUntil);
    try {
      const still = await heartbeat(this.pool, this.id, this.leaseMs);
      this.lastBeat = Date.now();
      // A lease claimed while the heartbeat ran is not in `still`, and not lost.
      const claimed = (id: string) =>
        this.validUntil.get(id) !== before.get(id);
      for (const id of this.held)
        if (!still.has(id) && !claimed(id)) this.drop(id);
      // The database set expiry at least leaseMs after `sent`: the lease holds until then.
      for (const id of still) {
        this.held.add(id);
        const until = Math.max(
          sent + this.leaseMs,
          this.validUntil.get(id) ?? 0,
        );
        this.validUntil.set(id, until);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, "cluster: heartbeat failed");
    }
    this.hooks?.tick();
  }

  // Gives up the leases whose renewal is overdue: from their expiry on another node may run them.
  private fence(): void {
    const now = Date.now();
    for (const id of this.held)
      if ((this.validUntil.get(id) ?? 0) <= now) {
        this.options.logger.warn(
          { sessionId: id, leaseMs: this.leaseMs },
          "cluster: lease not renewed in time; its turn here is cancelled",
        );
        this.drop(id);
      }
  }

  // This node no longer runs the session.
  private drop(sessionId: string): void {
    this.held.delete(sessionId);
    this.validUntil.delete(sessionId);
    this.hooks?.lost(sessionId);
  }

  /** This node's figures for /metrics. */
  gauges(): { leases: number; heartbeatAgeMs: number; database: boolean } {
    const age = Date.now() - this.lastBeat;
    return {
      leases: this.held.size,
      heartbeatAgeMs: age,
      database: age < this.leaseMs,
    };
  }

  /** Whether the database answers heartbeats and so the leases are still this node's. */
  health(): { node: string; database: boolean; leases: number } {
    const fresh = Date.now() - this.lastBeat < this.leaseMs;
    return {
      node: this.id,
      database: fresh,
      leases: fresh ? this.held.size : 0,
    };
  }

  /** True when this node holds the session's lease (as of its last claim or heartbeat). */
  runs(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  async claim(sessionId: string, turn: boolean): Promise<Claim> {
    await this.ready;
    // The lease runs from its write, which may come long after the claim was sent (the row
    // was locked by a batch of a node cut off mid-transaction): counted from there.
    let sent = Date.now();
    const claim = await claimLease(
      this.pool,
      sessionId,
      this.id,
      this.leaseMs,
      turn,
      () => (sent = Date.now()),
    );
    if (claim.held) {
      this.held.add(sessionId);
      this.validUntil.set(sessionId, sent + this.leaseMs);
    } else {
      this.held.delete(sessionId);
      this.validUntil.delete(sessionId);
    }
    return claim;
  }

  async turnEnded(sessionId: string): Promise<void> {
    await this.pool.query(
      "UPDATE acphub_leases SET busy = FALSE WHERE session_id = $1 AND node_id = $2",
      [sessionId, this.id],
    );
  }

  async relayCancel(sessionId: string): Promise<void> {
    const holder = await holderOf(this.pool, sessionId);
    if (!holder || holder === this.id) return;
    await this.pool.query("SELECT pg_notify($1, $2)", [
      CHANNEL,
      JSON.stringify({ to: holder, cancel: sessionId }),
    ]);
  }

  attached(sessionId: string): void {
    this.hooks?.attached(sessionId);
  }

  // The connection that hears cancels meant for this node; re-opened when lost.
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url });
    client.on("notification", (m) => this.heard(m.payload));
    const lost = () => {
      if (this.listener !== client || this.stopped) return;
      this.listener = undefined;
      setTimeout(() => void this.listen().catch(() => undefined), 500).unref();
    };
    client.on("error", lost);
    client.on("end", lost);
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  private heard(payload: string | undefined): void {
    try {
      const message = JSON.parse(payload ?? "") as {
        to?: string;
        cancel?: string;
      };
      if (message.to === this.id && message.cancel)
        this.hooks?.cancel(message.cancel);
    } catch {
      this.options.logger.warn({ payload }, "cluster: unreadable notification");
    }
  }

  /** Leaves the cluster: leases and row deleted so other nodes need not wait for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.fenceTimer);
    if (this.id) await leaveCluster(this.pool, this.id).catch(() => undefined);
    await this.listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
