// A node's side of requests carried between nodes (issue 37): what it sends to the node that
// runs a session (answered once the session's updates up to the answer were offered to the
// clients here), what it serves for other nodes, and an admin's move of a session's agent to a
// node. Notices arrive on the cluster's channel; requests sent while this node did not listen
// are found at the next heartbeat, and every node sweeps what dead senders left.
import type { ClusterStore } from "../contracts/cluster-store.js";
import { turnRunning } from "../engine/turn-gate.js";
import { notRunner } from "../hub/cluster-claims.js";
import { serveCarried } from "../hub/routed.js";
import type { RouteCall, RouteOutcome } from "../hub/runner.js";
import type { SessionHub } from "../hub/session-hub.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import { isHubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import type { ClusterFeed } from "./feed.js";
import { askMove, mustBeLive } from "./move.js";
import {
  CHANNEL,
  sendAndWait,
  ServedRequests,
  Waiters,
} from "./node-requests.js";
import type { NodeRequest } from "../contracts/cluster-store.js";

/** What routing needs of its node. */
export interface RoutingDeps {
  store: ClusterStore;
  logger: Logger;
  nodeId: () => string;
  leaseMs: number;
  pollMs: number;
  hub: () => SessionHub;
  feed: () => ClusterFeed;
  draining: () => boolean;
  /** The session's lease is this node's now (moved here), from `sent` on. */
  heldHere: (sessionId: string, sent: number) => void;
  /** Another node took the session's lease: given up here. */
  drop: (sessionId: string) => void;
}

/** A notice on the cluster's channel. */
export interface Notice {
  to?: string;
  request?: string;
  answer?: string;
  cancelOp?: string;
  release?: string;
}

export class NodeRouting {
  private readonly waiters = new Waiters();
  private readonly served: ServedRequests;

  constructor(private readonly deps: RoutingDeps) {
    this.served = new ServedRequests({
      store: deps.store,
      nodeId: deps.nodeId,
      logger: deps.logger,
      serve: (request, signal) => this.serve(request, signal),
      lastSeq: async (id) =>
        (await deps.hub().ledger.readPage(id, { from: "newest", limit: 1 })).at(
          -1,
        )?.seq ?? 0,
    });
  }

  // A notice for this node: a request to take, an answer to read, a cancel, a lease moved away.
  heard(notice: Notice): void {
    if (notice.request) void this.served.take(notice.request);
    else if (notice.answer) this.waiters.wake(notice.answer);
    else if (notice.cancelOp) this.served.cancel(notice.cancelOp);
    else if (notice.release) this.deps.drop(notice.release);
  }

  /** Takes the requests for this node whose notice never arrived; sweeps now and then. */
  async catchUp(sweep: boolean): Promise<void> {
    const ops = await this.deps.store.pendingRequests(this.deps.nodeId());
    for (const op of ops) void this.served.take(op);
    if (sweep) await this.served.sweep();
  }

  /** Carries a request to `node`; an answer only once the clients here saw the updates before it. */
  async route(
    node: string,
    call: RouteCall,
    signal: AbortSignal,
  ): Promise<RouteOutcome> {
    const { sessionId, method, params, user } = call;
    const caller = user ? { name: user.name, role: user.role } : undefined;
    const outgoing = { sessionId, to: node, method, params };
    const outcome = await sendAndWait(
      this.deps.store,
      this.waiters,
      this.deps.nodeId(),
      caller ? { ...outgoing, caller } : outgoing,
      signal,
      { pollMs: this.deps.pollMs },
    );
    if ("answer" in outcome)
      await this.deps.feed().reach(sessionId, outcome.answer.lastSeq);
    return outcome;
  }

  /** Moves an idle session's agent to a live node: that node takes the lease and restores it. */
  async move(
    sessionId: string,
    node: string,
  ): Promise<Record<string, unknown>> {
    if (node !== this.deps.nodeId())
      return askMove(
        {
          store: this.deps.store,
          waiters: this.waiters,
          from: this.deps.nodeId(),
          leaseMs: this.deps.leaseMs,
          pollMs: this.deps.pollMs,
        },
        sessionId,
        node,
      );
    await mustBeLive(this.deps.store, node, this.deps.leaseMs);
    return this.moveHere(sessionId);
  }

  // The move's end on the node named: the lease taken (refused while a turn runs), the node that
  // held it told to let go, the agent restored here.
  private async moveHere(sessionId: string): Promise<Record<string, unknown>> {
    const me = this.deps.nodeId();
    const sent = Date.now();
    const moved = await this.deps.store.moveLease(
      sessionId,
      me,
      this.deps.leaseMs,
    );
    if (!moved.moved) throw turnRunning(sessionId, moved.holder);
    this.deps.heldHere(sessionId, sent);
    const from = moved.from !== me ? moved.from : undefined;
    if (from)
      await this.deps.store.notify(
        CHANNEL,
        JSON.stringify({ to: from, release: sessionId }),
      );
    await this.deps.hub().restoreHere(sessionId);
    return { sessionId, node: me, ...(from ? { from } : {}) };
  }

  // A request carried here: a move, else the hub answers it as for a client of its own (a busy
  // answer names this node, as a busy lease did before); a draining node sends it back.
  private async serve(
    request: NodeRequest,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (request.method === HUB_METHOD.sessionsMove)
      return this.moveHere(request.sessionId);
    const hub = this.deps.hub();
    if (this.deps.draining() && !hub.running.has(request.sessionId))
      throw notRunner(request.sessionId);
    try {
      return await serveCarried(hub, request, signal);
    } catch (error) {
      if (
        isHubError(error, "PROMPT_IN_FLIGHT") &&
        error.details["node"] === undefined
      )
        throw turnRunning(request.sessionId, this.deps.nodeId());
      throw error;
    }
  }
}
