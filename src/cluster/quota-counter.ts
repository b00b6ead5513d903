// The per-user quota counts of a cluster (issue 37): kept in the ledger (QuotaStore) where every
// node sees them, each hold this node's (it vanishes from the counts once this node's heartbeat
// is older than its lease: a crashed node does not lock its users out). Prompts per minute count
// across the nodes too. One round trip per check; a release is sent without waiting (`settled`
// waits for those sent so far).
import type { QuotaStore } from "../contracts/quota-store.js";
import type { Logger } from "../shared/logger.js";
import {
  once,
  type HeldKind,
  type QuotaCounter,
} from "../hub/quota-counter.js";

/** What the counter needs of its node: its id once it has joined, and its lease. */
export interface CountingNode {
  readonly leaseMs: number;
  /** The node's id, once it has joined the cluster. */
  joined(): Promise<string>;
}

/** No limit on "live" marks: they only count (in "opening"'s max). */
const UNLIMITED = 2_147_483_647;

export class ClusterQuotaCounter implements QuotaCounter {
  /** Releases sent and not yet written. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(
    private readonly store: QuotaStore,
    private readonly node: CountingNode,
    private readonly logger: Logger,
  ) {}

  hold(user: string, kind: HeldKind, max: number, sessionId?: string) {
    return this.holdOne(user, kind, max, sessionId);
  }

  held(user: string, kind: HeldKind): Promise<number> {
    return this.store.held(user, kind, this.node.leaseMs);
  }

  take(user: string, max: number, windowMs: number): Promise<number> {
    return this.store.take(user, max, windowMs);
  }

  async live(user: string, sessionId: string): Promise<() => void> {
    const release = await this.holdOne(user, "live", UNLIMITED, sessionId);
    return release ?? (() => undefined);
  }

  // One hold of this node's in the ledger: its release, or undefined when `max` are held.
  private async holdOne(
    user: string,
    kind: string,
    max: number,
    sessionId: string | undefined,
  ): Promise<(() => void) | undefined> {
    const id = await this.store.hold({
      user,
      kind,
      max,
      nodeId: await this.node.joined(),
      ...(sessionId === undefined ? {} : { sessionId }),
      staleMs: this.node.leaseMs,
    });
    if (id === undefined) return undefined;
    return once(() => {
      const sent = this.store
        .release(id)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, user, kind },
            "cluster: a quota hold was not given back (it goes when this node leaves or restarts)",
          ),
        );
      this.releasing.add(sent);
      void sent.then(() => this.releasing.delete(sent));
    });
  }

  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }
}
