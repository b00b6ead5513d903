// Prompts sent while a turn runs, with `_meta.acphub.queue: true` (issue 37): the gate puts them
// in the session's line (engine/turn-gate.ts decides, as for every turn); here is what the hub
// adds — each is recorded (`prompt_queued`, ledger first) and shown to every attached client,
// may be revoked before it runs by its author, the session's owner or an admin, and starts as a
// normal turn when the turns before it ended (`prompt_dequeued` "started", then its prompt). Its
// own request stays pending and is answered with its turn's result, or — revoked — cancelled with
// `_meta.acphub.revoked`. A disconnect does not revoke it. One the hub's stop left in the line is
// recorded as dropped when its session is next opened where it may run: never run later.
import { randomUUID } from "node:crypto";
import type { LedgerPort, EditorPort } from "../engine/ports.js";
import {
  turnRunning,
  type CancelScope,
  type TurnClaim,
  type TurnGate,
  type TurnWaiter,
} from "../engine/turn-gate.js";
import type {
  DequeueReason,
  DequeuedPayload,
  QueuedPayload,
} from "../engine/queued-prompts.js";
import { shownUpdates, updateParams } from "../engine/wire-updates.js";
import { HubError } from "../shared/errors.js";
import { ownMetaOf } from "../shared/hub-extension.js";
import type { SessionAccess } from "./access.js";
import type { HubClient } from "./attachments.js";
import type { ClusterClaims, LeaseAnswer } from "./cluster-claims.js";
import type { AdmittedPrompt } from "./prompt-admission.js";
import { leftAnswer, openQueued, queueFate } from "./queue-records.js";
import type { SessionRunner } from "./runner.js";
import type { RunningTurns } from "./running-turns.js";

type Params = Record<string, unknown>;

/** How many prompts a session's line holds by default (serve.maxQueuedPrompts). */
export const DEFAULT_MAX_QUEUED_PROMPTS = 16;

/** What the queue reads and writes. */
export interface PromptQueueDeps {
  turns: TurnGate;
  ledger: LedgerPort;
  editor: EditorPort;
  running: RunningTurns;
  access: SessionAccess;
  runner?: SessionRunner;
  /** The most prompts one session's line holds. */
  maxQueued: number;
}

/** A prompt in a session's line here. */
interface InLine {
  sessionId: string;
  waiter: TurnWaiter;
  /** Its idempotency key: a re-sent request with it is not queued twice. */
  key?: string;
  /** The hub user who queued it (none: the serve token's holder, or a hub without users). */
  by?: string;
}

/** The turn a prompt may run in: its claim and lease; a queued one's own cancel scope. */
export interface TurnHeld {
  claim: TurnClaim;
  lease: LeaseAnswer;
  /** A queued prompt's cancel scope, registered when it starts (a cancel of the turn it
   *  waited for does not reach it). */
  scope?: CancelScope;
}

/** Why a prompt left the line before it ran: the answer its request gets. */
class LeftLine extends Error {
  constructor(
    readonly reason: DequeueReason,
    readonly by: string | undefined,
    /** Resolves once the ledger holds why (the answer goes out after it). */
    readonly recorded: Promise<void>,
  ) {
    super(`queued prompt ${reason}`);
  }
}

/** True when a session/prompt asks to wait for a running turn (`_meta.acphub.queue: true`). */
export function wantsQueue(params: Params): boolean {
  return ownMetaOf(params["_meta"]).queue === true;
}

export class PromptQueue {
  private readonly lines = new Map<string, InLine>();

  constructor(private readonly deps: PromptQueueDeps) {}

  /** The prompt asks to queue and its session's turn is held here now (it would wait). */
  waits(sessionId: string, params: Params): boolean {
    return (
      wantsQueue(params) && this.deps.turns.claimOf(sessionId) !== undefined
    );
  }

  /**
   * The session's turn for an admitted prompt: claimed at once; or, for one that asked to queue
   * while a turn runs here, after the turns before it — else the recorded answer of one revoked.
   */
  async turnFor(
    client: HubClient,
    a: AdmittedPrompt,
    lease: LeaseAnswer,
    claims: ClusterClaims,
    signal: AbortSignal,
  ): Promise<TurnHeld | { answer: Params }> {
    const { turns, maxQueued } = this.deps;
    const id = a.facts.record.id;
    if (!wantsQueue(a.facts.prompt.params))
      return { claim: turns.claim(id, lease.runsOn), lease };
    if (a.key !== undefined) this.notTwice(id, a.key);
    const queueId = `q-${randomUUID()}`;
    const held = turns.claimOrWait(id, lease.runsOn, {
      id: queueId,
      max: maxQueued,
    });
    if (!("claimed" in held)) return { claim: held, lease };
    const by = client.user?.name;
    this.lines.set(queueId, {
      sessionId: id,
      waiter: held,
      ...(by ? { by } : {}),
      ...(a.key !== undefined ? { key: a.key } : {}),
    });
    try {
      await this.record(id, "prompt_queued", {
        queueId,
        prompt: a.facts.prompt.blocks,
        ...(a.facts.author ? { author: a.facts.author } : {}),
      } satisfies QueuedPayload);
    } catch (error) {
      this.lines.delete(queueId);
      held.leave(error as Error);
      throw error;
    }
    return this.waitTurn(held, by, claims, signal);
  }

  // Waits in line (the request's own cancel revokes it), then takes the lease and records the
  // start; a prompt that left the line is answered cancelled, saying why.
  private async waitTurn(
    waiter: TurnWaiter,
    by: string | undefined,
    claims: ClusterClaims,
    signal: AbortSignal,
  ): Promise<TurnHeld | { answer: Params }> {
    const id = waiter.sessionId;
    const onAbort = () => void this.leave(waiter.id, "revoked", by);
    signal.addEventListener("abort", onAbort, { once: true });
    let claim: TurnClaim;
    try {
      claim = await waiter.claimed;
    } catch (error) {
      if (!(error instanceof LeftLine)) throw error;
      await error.recorded.catch(() => undefined);
      return { answer: leftAnswer(waiter.id, error) };
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.lines.delete(waiter.id);
    }
    try {
      await this.deps.running.gone(id);
      const lease = await claims.claimTurn(id);
      if (lease.runsOn !== undefined) {
        await this.recordLeft(id, waiter.id, "dropped");
        throw turnRunning(id, lease.runsOn);
      }
      await this.recordLeft(id, waiter.id, "started");
      const scope = this.deps.turns.cancelScope(id, signal);
      return { claim, lease, scope };
    } catch (error) {
      claim.release();
      throw error;
    }
  }

  // Refuses a re-sent request (a reconnecting client's) whose first copy waits in the line.
  private notTwice(sessionId: string, key: string): void {
    for (const [queueId, entry] of this.lines)
      if (entry.sessionId === sessionId && entry.key === key)
        throw new HubError(
          "USAGE",
          `a prompt with this idempotency key is already queued (${queueId}); it runs once, when the turns before it ended`,
          { details: { reason: "already_queued", queueId } },
        );
  }

  /**
   * Empties a session's line (every session's without one), each prompt recorded as `reason`
   * and answered cancelled: the session is deleted, or the hub stops.
   */
  async clear(
    sessionId: string | undefined,
    reason: DequeueReason,
    by?: string,
  ): Promise<void> {
    const ids = [...this.lines]
      .filter(([, e]) => sessionId === undefined || e.sessionId === sessionId)
      .map(([queueId]) => queueId);
    for (const queueId of ids)
      await this.leave(queueId, reason, by).catch(() => false);
  }

  // Takes a prompt out of the line and records why (ledger first, then every client is told);
  // false when it is not in the line here (it started, or it is not this process's).
  private async leave(
    queueId: string,
    reason: DequeueReason,
    by?: string,
  ): Promise<boolean> {
    const entry = this.lines.get(queueId);
    if (!entry) return false;
    let done!: () => void;
    const recorded = new Promise<void>((resolve) => (done = resolve));
    if (!entry.waiter.leave(new LeftLine(reason, by, recorded))) return false;
    this.lines.delete(queueId);
    try {
      await this.recordLeft(entry.sessionId, queueId, reason, by);
    } finally {
      done();
    }
    return true;
  }

  /**
   * `_acphub/queue/revoke`: its author, the session's owner or an admin takes a queued prompt
   * out of the line before it runs (again: answered the same); one already started is refused.
   */
  async revoke(client: HubClient, sessionId: string, params: Params) {
    const queueId = params["queueId"];
    if (typeof queueId !== "string" || !queueId)
      throw new HubError("USAGE", "queueId must be a queued prompt's id (q-…)");
    const entry = this.lines.get(queueId);
    if (entry && entry.sessionId === sessionId) {
      await this.mayRevoke(client, sessionId, queueId, entry.by);
      const name = client.user?.name;
      if (await this.leave(queueId, "revoked", name ?? "admin")) {
        this.deps.access.note(client.user, "queue_revoke", sessionId, {
          queueId,
        });
        return { queueId, revoked: true };
      }
    }
    return this.revokedBefore(sessionId, queueId);
  }

  // Refuses a user who neither queued the prompt nor owns the session (admins may).
  private async mayRevoke(
    client: HubClient,
    sessionId: string,
    queueId: string,
    by: string | undefined,
  ): Promise<void> {
    if (by !== undefined && client.user?.name === by) return;
    try {
      await this.deps.access.mustOwn(client.user, sessionId);
    } catch {
      throw new HubError(
        "PERMISSION_DENIED",
        `only the one who queued prompt ${queueId}${by ? ` (${by})` : ""}, the owner of session ${sessionId} or an admin may revoke it`,
      );
    }
  }

  // A prompt not in the line here: what the ledger says of it (revoked or dropped: answered as
  // revoked again; started: refused; queued on another node, or never queued: refused).
  private async revokedBefore(sessionId: string, queueId: string) {
    const fate = await queueFate(this.deps.ledger, sessionId, queueId);
    if (fate === "revoked" || fate === "dropped")
      return { queueId, revoked: true };
    if (fate === "started")
      throw new HubError(
        "USAGE",
        `queued prompt ${queueId} has already started: it can no longer be revoked (session/cancel stops it)`,
        { details: { reason: "already_started", queueId } },
      );
    if (fate === "queued")
      throw new HubError(
        "USAGE",
        `queued prompt ${queueId} waits on the node that runs session ${sessionId}: revoke it there`,
        { retryable: true, details: { reason: "other_node", queueId } },
      );
    throw new HubError(
      "USAGE",
      `session ${sessionId} has no queued prompt ${queueId}`,
      { details: { reason: "unknown_queue_id", queueId } },
    );
  }

  /**
   * Records as dropped every prompt the ledger holds as queued that no line here holds: the hub
   * (or the node) that held them stopped. Only where this process may run the session.
   */
  async dropLeftOver(sessionId: string): Promise<void> {
    const open = await openQueued(this.deps.ledger, sessionId);
    const orphans = open.filter((q) => !this.lines.has(q));
    if (orphans.length === 0) return;
    const runner = this.deps.runner;
    if (runner && !(await runner.claim(sessionId, false)).held) return;
    for (const queueId of orphans)
      await this.recordLeft(sessionId, queueId, "dropped");
  }

  private recordLeft(
    sessionId: string,
    queueId: string,
    reason: DequeueReason,
    by?: string,
  ): Promise<void> {
    const payload: DequeuedPayload = { queueId, reason, ...(by ? { by } : {}) };
    return this.record(sessionId, "prompt_dequeued", payload);
  }

  // Ledger first, then every attached client (here; other nodes' through the cluster's feed).
  private async record(
    sessionId: string,
    kind: "prompt_queued" | "prompt_dequeued",
    payload: QueuedPayload | DequeuedPayload,
  ): Promise<void> {
    const text = JSON.stringify(payload);
    const seq = await this.deps.ledger.append(sessionId, kind, { ...payload });
    const [shown] =
      shownUpdates({ seq, kind, text, at: Date.now() }, false) ?? [];
    if (shown === undefined) return;
    await this.deps.editor.notify(
      "session/update",
      updateParams(sessionId, shown),
      { seq },
    );
  }
}
