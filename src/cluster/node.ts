// This `acphub serve` as a node of a cluster on one PostgreSQL ledger: its heartbeat in
// acphub_nodes, the leases of the sessions whose agents it runs (renewed with the heartbeat, lost
// ones dropped), cancels relayed to a runner by NOTIFY, questions every node's clients may answer
// (questions.ts), requests carried to a session's runner (node-routing.ts), grant and turn changes
// (turn-notices.ts). A lease not renewed within leaseMs (the database unreachable) is given up
// here at once: its turn is cancelled, as another node may take the session over from then on
// (fencing; the ledger also refuses this node's writes for a session another node holds). The
// SQL, pool, retry and LISTEN connection are the ledger's (ClusterStore); this file is the policy.
import type { Logger } from "../shared/logger.js";
import type { ClusterStore } from "../contracts/cluster-store.js";
import type {
  Claim,
  RouteCall,
  RouteOutcome,
  SessionRunner,
  StalledRunner,
} from "../hub/runner.js";
import type { SessionHub } from "../hub/session-hub.js";
import { ClusterFeed } from "./feed.js";
import { ClusterQuestions } from "./questions.js";
import { stalledHolder } from "./stalled.js";
import { CHANNEL } from "./node-requests.js";
import { NodeRouting, type Notice } from "./node-routing.js";
import { listenListChanges } from "./turn-notices.js";

export const DEFAULT_LEASE_MS = 10_000;
export const DEFAULT_DRAIN_MS = 30_000;
/** Every this many heartbeats a node sweeps the requests dead senders left. */
const SWEEP_EVERY_BEATS = 20;

export interface ClusterOptions {
  /** The ledger's cluster store: nodes, leases and messages over its pool and LISTEN. */
  store: ClusterStore;
  /**
   * The hub this node runs sessions for. The hub takes the node as its runner, so it is built
   * after it: asked for only once the node runs (a lease lost, a cancel heard, a client attached).
   */
  hub: () => SessionHub;
  leaseMs?: number;
  heartbeatMs?: number;
  logger: Logger;
}

export class ClusterNode implements SessionRunner {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private readonly store: ClusterStore;
  private readonly logger: Logger;
  private unlisten: (() => void) | undefined;
  private unlistenGrants: (() => void) | undefined;
  private feedOnce: ClusterFeed | undefined;
  private timer: NodeJS.Timeout | undefined;
  private id = "";
  private held = new Set<string>();
  /** Until when (this machine's clock) each held lease surely has not lapsed on the database's. */
  private readonly validUntil = new Map<string, number>();
  private fenceTimer: NodeJS.Timeout | undefined;
  private lastBeat = 0;
  /** A heartbeat under way: a beat due meanwhile is skipped. */
  private beating = false;
  private ready: Promise<void>;
  private readyNow!: () => void;
  /** Permission questions asked of every node's clients (the hub's `QuestionBoard`). */
  readonly questions: ClusterQuestions;
  private readonly routing: NodeRouting;
  private draining = false;
  private beats = 0;

  constructor(private readonly options: ClusterOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs =
      options.heartbeatMs ?? Math.max(200, Math.floor(this.leaseMs / 4));
    this.ready = new Promise((resolve) => (this.readyNow = resolve));
    this.questions = new ClusterQuestions({
      store: this.store,
      hub: options.hub,
      nodeId: () => this.id,
      leaseMs: this.leaseMs,
      logger: this.logger,
    });
    this.routing = new NodeRouting({
      store: this.store,
      logger: this.logger,
      nodeId: () => this.id,
      leaseMs: this.leaseMs,
      pollMs: this.heartbeatMs,
      hub: options.hub,
      feed: () => this.feed,
      draining: () => this.draining,
      heldHere: (id, sent) => {
        this.held.add(id);
        this.validUntil.set(id, sent + this.leaseMs);
      },
      drop: (id) => {
        if (this.held.has(id)) this.drop(id);
        else
          void options
            .hub()
            .release(id)
            .catch(() => undefined);
      },
    });
  }

  // The feed of other nodes' turns, made when first needed (the hub exists by then).
  private get feed(): ClusterFeed {
    const hub = this.options.hub();
    return (this.feedOnce ??= new ClusterFeed(
      hub,
      (id, listener) => hub.ledger.follow(id, listener),
      (id) => this.runs(id),
      this.logger,
      (id, before) => this.questions.turnEnded(id, before),
      (ids) => this.store.lastSeqs(ids),
    ));
  }

  get nodeId(): string {
    return this.id;
  }

  /** The node's id, once it has joined the cluster (what it holds in the ledger is its). */
  async joined(): Promise<string> {
    await this.ready;
    return this.id;
  }

  /** Joins the cluster once the server listens (its URL and default id known). */
  async start(nodeId: string, url: string): Promise<void> {
    this.id = nodeId;
    this.store.fenceAs(nodeId);
    await this.store.registerNode(nodeId, url);
    this.lastBeat = Date.now();
    this.unlisten = await this.store.listen(
      CHANNEL,
      (p) => this.heard(p),
      () => void this.routing.catchUp(false).catch(() => undefined),
    );
    await this.questions.start();
    const { hub } = this.options;
    this.unlistenGrants = await listenListChanges(this.store, hub, this.logger);
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
    const check = Math.max(50, Math.min(500, this.heartbeatMs / 2));
    this.fenceTimer = setInterval(() => this.fence(), check);
    this.fenceTimer.unref();
    this.readyNow();
  }

  // One heartbeat: renew; sessions whose leases another node took are dropped here. A lost
  // connection is retried until the next heartbeat is due, not longer (it renews then).
  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const sent = Date.now();
    const before = new Map(this.validUntil);
    try {
      const still = await this.store.heartbeat(
        this.id,
        this.leaseMs,
        this.heartbeatMs,
      );
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
      this.logger.warn({ err: error }, "cluster: heartbeat failed");
    } finally {
      this.beating = false;
    }
    // What a lost notification did not tell is read now.
    void this.feedOnce?.tick();
    await this.questions.tick();
    const sweep = ++this.beats % SWEEP_EVERY_BEATS === 0;
    await this.routing.catchUp(sweep).catch(() => undefined);
  }

  // Gives up the leases whose renewal is overdue: from their expiry on another node may run them.
  private fence(): void {
    const now = Date.now();
    for (const id of this.held)
      if ((this.validUntil.get(id) ?? 0) <= now) {
        this.logger.warn(
          { sessionId: id, leaseMs: this.leaseMs },
          "cluster: lease not renewed in time; its turn here is cancelled",
        );
        this.drop(id);
      }
  }

  // This node no longer runs the session: the hub gives it up here.
  private drop(sessionId: string): void {
    this.held.delete(sessionId);
    this.validUntil.delete(sessionId);
    this.logger.info(
      { sessionId },
      "cluster: this node no longer runs the session",
    );
    void this.options
      .hub()
      .giveUp(sessionId, () => this.runs(sessionId))
      .catch(() => undefined);
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
    const { database, leases } = this.gauges();
    return { node: this.id, database, leases: database ? leases : 0 };
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
    const claim = await this.store.claimLease({
      sessionId,
      nodeId: this.id,
      leaseMs: this.leaseMs,
      turn,
      locked: () => (sent = Date.now()),
    });
    if (claim.held) {
      this.held.add(sessionId);
      this.validUntil.set(sessionId, sent + this.leaseMs);
    } else {
      this.held.delete(sessionId);
      this.validUntil.delete(sessionId);
    }
    return claim;
  }

  // Retried while the lease still holds: a lease given up (the database unreachable past it) is
  // not waited for, as the turn's answer waits for this.
  async turnEnded(sessionId: string): Promise<void> {
    const holds = (this.validUntil.get(sessionId) ?? 0) - Date.now();
    await this.store.leaseIdle(sessionId, this.id, Math.max(0, holds));
  }

  async relayCancel(sessionId: string): Promise<void> {
    const holder = await this.store.holderOf(sessionId);
    if (!holder || holder === this.id) return;
    await this.store.notify(
      CHANNEL,
      JSON.stringify({ to: holder, cancel: sessionId }),
    );
  }

  stalled(sessionId: string): Promise<StalledRunner | undefined> {
    return stalledHolder(this.store, sessionId, this.id, this);
  }

  turnsElsewhere(ids: string[]): ReturnType<ClusterStore["turnsElsewhere"]> {
    return this.store.turnsElsewhere(ids, this.id);
  }

  attached(sessionId: string): void {
    this.feed.attached(sessionId);
    this.questions.attached(sessionId);
  }

  route(
    node: string,
    call: RouteCall,
    signal: AbortSignal,
  ): Promise<RouteOutcome> {
    return this.routing.route(node, call, signal);
  }

  async move(
    sessionId: string,
    node: string,
  ): Promise<Record<string, unknown>> {
    await this.ready;
    return this.routing.move(sessionId, node);
  }

  /** Stops running sessions for others: their idle ones are taken by the nodes asked for them. */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.id)
      await this.store
        .setDraining(this.id)
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, "cluster: draining not recorded"),
        );
  }

  // A notice for this node: a cancel another node relays to the session it runs, or a carried
  // request's (node-routing.ts).
  private heard(payload: string): void {
    let message: Notice & { cancel?: string };
    try {
      message = JSON.parse(payload) as Notice & { cancel?: string };
    } catch {
      return this.logger.warn({ payload }, "cluster: unreadable notification");
    }
    if (message.to !== this.id) return;
    if (message.cancel) {
      const sessionId = message.cancel;
      void this.options
        .hub()
        .cancel({ sessionId })
        .catch(() => undefined);
    } else this.routing.heard(message);
  }

  /**
   * Leaves the cluster: leases and row deleted so other nodes need not wait for them. Before the
   * ledger closes (its pool and LISTEN connection are the ones used here).
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.fenceTimer);
    this.unlisten?.();
    this.unlistenGrants?.();
    if (this.id) await this.questions.stop();
    if (this.id) await this.store.leave(this.id).catch(() => undefined);
  }
}
