// The hub's side of a cluster's lease (the SessionRunner port): a turn claims its session first,
// a request for a session another live node runs is carried there and answered from there
// (issue 37: the agent stays warm where it runs), a session held by another node is only
// watched here, and a session this node lost is given up. Without a runner every claim is this
// process's and nothing here waits.
import { RequestError } from "@agentclientprotocol/sdk";
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import type { Gateway } from "../engine/gateway.js";
import type { LedgerPort } from "../engine/ports.js";
import type { HubClient } from "./attachments.js";
import type { GatewayPool } from "./gateway-pool.js";
import type { RunningTurns } from "./running-turns.js";
import type { Claim, SessionRunner } from "./runner.js";
import type { EndHow } from "./interrupted-turns.js";
import { Takeovers } from "./takeovers.js";

type Params = Record<string, unknown>;

/** When this process started: a prompt recorded since was not cut off by its previous run. */
const STARTED_AT = Date.now();
/** How many times a request follows its session from node to node before giving up. */
const MAX_HOPS = 3;
/** Sessions whose runner elsewhere is remembered (the oldest forgotten past this). */
const MAX_REMEMBERED_RUNNERS = 10_000;

/** A request that runs here, or on the node that runs its session. */
export interface PlacedCall {
  client: HubClient;
  method: string;
  params: Params;
  signal: AbortSignal;
}

/** Said by a node given a request for a session it no longer runs: the sender decides again. */
export function notRunner(sessionId: string): HubError {
  return new HubError(
    "CLOSED",
    `this node no longer runs session ${sessionId}: send the request again`,
    { retryable: true, details: { reroute: true } },
  );
}

/** What the claims read and act on. */
export interface ClusterClaimsDeps {
  runner?: SessionRunner;
  running: RunningTurns;
  gateways: GatewayPool;
  ledger: LedgerPort;
  logger: Logger;
  /** Ends the session's cut-off turn (`ranOn`: the node that ran it, when known). */
  endInterrupted: (sessionId: string, how?: EndHow) => Promise<void>;
  /** Resolves once no end of the session's interrupted turn is under way here. */
  interruptedSettled: (sessionId: string) => Promise<void>;
}

/** What a claim on the lease found: this call took it, or another live node runs it. */
export interface LeaseAnswer {
  took: boolean;
  /** The live node that runs the session: the request is carried there. */
  runsOn?: string;
}

export class ClusterClaims {
  /** Sessions whose turn cut off before this process started was looked for (one process). */
  private readonly checked = new Set<string>();
  /** The node last found running each session elsewhere: the next request goes straight there
   *  (no claim first); a node that no longer runs it sends it back, and the claim decides. */
  private readonly runsOn = new Map<string, string>();

  /** Sessions whose runner stopped answering: said so, and taken over when the lease lapses. */
  readonly takeovers: Takeovers;

  constructor(private readonly deps: ClusterClaimsDeps) {
    this.takeovers = new Takeovers(
      deps.runner,
      (id) => this.endUnended(id),
      deps.logger,
    );
  }

  // Takes the session's lease for a turn (from an idle or dead runner): taken by this call, or
  // the node that runs the session's turn. A turn already running here is left to the gate.
  async claimTurn(sessionId: string): Promise<LeaseAnswer> {
    const runner = this.deps.runner;
    if (this.deps.running.has(sessionId)) return { took: false };
    if (!runner) {
      await this.endFromBefore(sessionId);
      await this.deps.interruptedSettled(sessionId);
      return { took: false };
    }
    const claim: Claim = await runner.claim(sessionId, true);
    if (!claim.held) return { took: false, runsOn: claim.holder };
    if (claim.interrupted) await this.endCut(sessionId, claim.ranOn);
    // An end another path of this node began goes first: the turn is not ended after its prompt.
    await this.deps.interruptedSettled(sessionId);
    return { took: true };
  }

  /**
   * A recorded prompt has no end and no turn runs here: ended as interrupted — in a cluster only
   * once this node holds the session's lease (while another live node runs the turn, the
   * retryable busy answer instead), so no two nodes end it, and the end is fenced otherwise.
   */
  async endUnended(sessionId: string): Promise<void> {
    const runner = this.deps.runner;
    if (!runner) return this.deps.endInterrupted(sessionId);
    const claim = await runner.claim(sessionId, true);
    if (!claim.held)
      throw await this.takeovers.refusal(sessionId, claim.holder);
    try {
      await this.endCut(sessionId, claim.interrupted ? claim.ranOn : undefined);
    } finally {
      await this.turnEnded(sessionId);
    }
  }

  // Ends the session's cut-off turn, naming the node that ran it when known.
  private endCut(sessionId: string, ranOn: string | undefined): Promise<void> {
    return this.deps.endInterrupted(sessionId, ranOn ? { ranOn } : {});
  }

  // One process (no cluster): a turn its previous run left without an end (killed, restarted)
  // is ended the first time the session is used here — once per session, as nothing this
  // process runs is ever cut off while it lives; and only a prompt recorded before it started
  // (another process on the same SQLite ledger, `acphub chat`, may run a later one).
  private async endFromBefore(sessionId: string): Promise<void> {
    if (this.checked.has(sessionId)) return;
    this.checked.add(sessionId);
    try {
      await this.deps.endInterrupted(sessionId, { promptBefore: STARTED_AT });
    } catch (error) {
      this.checked.delete(sessionId);
      throw error;
    }
  }

  // The turn this node claimed ended: the lease says idle (a failed write is logged, not thrown).
  async turnEnded(sessionId: string): Promise<void> {
    await this.deps.runner
      ?.turnEnded(sessionId)
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, "cluster: turn end not recorded"),
      );
  }

  /**
   * Where a request for the session runs: here when its lease is free, lapsed or this node's
   * (for a turn: claimed busy), else it is carried to the live node that runs the session and
   * answered from there. A request carried here is never carried on.
   */
  async claimOrRoute(
    sessionId: string,
    call: PlacedCall,
    turn: boolean,
  ): Promise<LeaseAnswer | { answer: unknown }> {
    for (let hop = 1; ; hop++) {
      const known = hop === 1 ? this.runsOn.get(sessionId) : undefined;
      const lease = known
        ? { took: false, runsOn: known }
        : turn
          ? await this.claimTurn(sessionId)
          : await this.place(sessionId);
      if (lease.runsOn === undefined) {
        this.runsOn.delete(sessionId);
        return lease;
      }
      if (call.client.routed) throw notRunner(sessionId);
      this.remember(sessionId, lease.runsOn);
      const routed = await this.routeTurn(sessionId, lease.runsOn, call, turn);
      if (routed) return routed;
      this.runsOn.delete(sessionId);
      if (hop >= MAX_HOPS)
        throw new HubError(
          "CLOSED",
          `session ${sessionId} moved between nodes while the request was carried: send it again`,
          { retryable: true },
        );
    }
  }

  // Remembers where a session runs, bounded (a Map keeps insertion order: the oldest goes).
  private remember(sessionId: string, node: string): void {
    this.runsOn.delete(sessionId);
    this.runsOn.set(sessionId, node);
    if (this.runsOn.size > MAX_REMEMBERED_RUNNERS)
      this.runsOn.delete(this.runsOn.keys().next().value!);
  }

  // The lease for a request that is no turn: taken when free, lapsed or ours (never busied).
  private async place(sessionId: string): Promise<LeaseAnswer> {
    const runner = this.deps.runner;
    if (!runner || this.deps.running.has(sessionId)) return { took: false };
    const claim = await runner.claim(sessionId, false);
    if (!claim.held) return { took: false, runsOn: claim.holder };
    if (claim.interrupted) await this.deps.endInterrupted(sessionId);
    return { took: false };
  }

  // A new prompt carried to a runner that stopped answering waits for its lease: said at once.
  private async routeTurn(
    sessionId: string,
    node: string,
    call: PlacedCall,
    turn: boolean,
  ): Promise<{ answer: unknown } | undefined> {
    if (!turn) return this.route(sessionId, node, call);
    const answered = new AbortController();
    void this.takeovers
      .waiting(sessionId, call.client, answered.signal)
      .catch(() => undefined);
    try {
      return await this.route(sessionId, node, call);
    } finally {
      answered.abort();
    }
  }

  // Carries the request to `node`: its answer (an error as the node gave it), undefined when
  // that node no longer runs the session, or, if the node died while it ran, the outcome here.
  private async route(
    sessionId: string,
    node: string,
    { client, method, params, signal }: PlacedCall,
  ): Promise<{ answer: unknown } | undefined> {
    const user = client.user;
    const call = { sessionId, method, params, ...(user ? { user } : {}) };
    const outcome = await this.deps.runner!.route(node, call, signal);
    if ("reroute" in outcome) return undefined;
    if ("lost" in outcome) {
      this.runsOn.delete(sessionId);
      return { answer: await this.lost(sessionId, method, outcome.lost) };
    }
    if (outcome.answer.reroute) return undefined;
    const { error, result } = outcome.answer;
    if (error) throw new RequestError(error.code, error.message, error.data);
    return { answer: result };
  }

  // The node running the request died (its lease lapsed) before answering: a prompt's turn is
  // ended here as interrupted (the session moves here, as a takeover does) and answered
  // `cancelled`; another request's outcome is unknown, and said so.
  private async lost(
    sessionId: string,
    method: string,
    node: string,
  ): Promise<Params> {
    if (method !== "session/prompt")
      throw new HubError(
        "CLOSED",
        `node ${node} stopped while it ran ${method} for session ${sessionId}; its outcome is unknown: send it again`,
        { retryable: true, details: { node } },
      );
    await this.endUnended(sessionId);
    // As a re-sent prompt's answer from the ledger says it (recorded-prompts.ts).
    return {
      stopReason: "cancelled",
      _meta: { acphub: { interrupted: true, outcome: "unknown", ranOn: node } },
    };
  }

  // Restores the agent when this process may run the session; else the session is only watched
  // here (its runner elsewhere streams through the ledger) and answered from the ledger.
  async restoreIfHeld(sessionId: string, gateway: Gateway): Promise<Params> {
    const runner = this.deps.runner;
    if (!runner) {
      await this.endFromBefore(sessionId);
      return gateway.resumeSession({ sessionId });
    }
    runner.attached(sessionId);
    const claim = await runner.claim(sessionId, false);
    if (!claim.held) return gateway.sessionState(sessionId);
    if (claim.interrupted) await this.endCut(sessionId, claim.ranOn);
    return gateway.resumeSession({ sessionId });
  }

  /**
   * This process may no longer run the session (its lease lapsed unrenewed, or another node took
   * it): a turn running here is cancelled without asking the ledger (it may be unreachable), and
   * once it ended the agent's live session is dropped unless `stillHeld` says it is ours again.
   */
  async giveUp(sessionId: string, stillHeld: () => boolean): Promise<void> {
    const live = this.deps.running.get(sessionId);
    if (!live) return stillHeld() ? undefined : this.release(sessionId);
    live.gateway.turns.claimOf(sessionId)?.cancel();
    await live.done.catch(() => undefined);
    const next = this.deps.running.get(sessionId);
    if (stillHeld() || (next && next !== live)) return;
    await live.gateway.release(sessionId);
  }

  /** Forgets the agent's live session here: another process runs it now (cluster handover). */
  async release(sessionId: string): Promise<void> {
    if (this.deps.running.has(sessionId)) return; // a turn here ends first (a database outage)
    await this.deps.gateways.holding(sessionId)?.release(sessionId);
  }
}
