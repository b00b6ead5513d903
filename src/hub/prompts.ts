// session/prompt through the hub: registered for session/cancel on arrival (in the one gate),
// admitted in one step (prompt-admission.ts), answered from the record when its idempotency key
// was seen, carried to the node that runs the session when another live node does (answered
// from there), refused while another turn runs here (the gate decides), else run on the
// session's gateway holding the session's turn.
import type { TurnGate } from "../engine/turn-gate.js";
import type { Attachments, HubClient } from "./attachments.js";
import type { ClusterClaims } from "./cluster-claims.js";
import {
  admitPrompt,
  type AdmittedPrompt,
  type PromptAdmissionDeps,
} from "./prompt-admission.js";
import type { PromptQueue } from "./prompt-queue.js";
import type { Quotas } from "./quotas.js";

type Params = Record<string, unknown>;

/** The hub's parts a prompt goes through. */
export interface HubPromptsDeps extends Omit<
  PromptAdmissionDeps,
  "endUnended"
> {
  turns: TurnGate;
  attachments: Attachments;
  claims: ClusterClaims;
  /** Prompts that asked to wait while a turn runs (prompt-queue.ts). */
  queue: PromptQueue;
}

export class HubPrompts {
  constructor(private readonly deps: HubPromptsDeps) {}

  // Registers the prompt for session/cancel before its first await (a cancel that follows it
  // on the wire finds it while its checks still run), then admits and runs it.
  async prompt(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
    quotas?: Quotas,
  ): Promise<Params> {
    const { turns, claims } = this.deps;
    const scope = turns.cancelScope(String(params["sessionId"]), signal);
    try {
      const admission = await admitPrompt(
        {
          ...this.deps,
          endUnended: (id) => claims.endUnended(id),
          waits: (id, p) => this.deps.queue.waits(id, p),
        },
        client,
        params,
        quotas,
      );
      if ("answer" in admission) return admission.answer;
      try {
        return await this.run(client, admission, scope.signal, signal, params);
      } finally {
        admission.release();
      }
    } finally {
      scope.release();
    }
  }

  // The lease first (in a cluster: or the node that runs the session answers it), then "is a
  // turn running → who owns it → run the prompt" without an await in between, so a refused
  // prompt changes nothing: not the owner, the ledger, the title or the idempotency record.
  private async run(
    client: HubClient,
    a: AdmittedPrompt,
    signal: AbortSignal,
    /** The request's own signal (a queued prompt's: not the turn before it's cancel). */
    own: AbortSignal,
    params: Params,
  ): Promise<Params> {
    const { attachments, running, claims, turns, queue } = this.deps;
    const id = a.facts.record.id;
    const call = { client, method: "session/prompt", params, signal };
    const first = await claims.claimOrRoute(id, call, true);
    if ("answer" in first) return first.answer as Params;
    const live = running.get(id);
    if (live && a.key !== undefined && live.key === a.key) return live.done;
    // The gate's claim, or (asked with queue) a place in the session's line until it is ours.
    const held = await queue.turnFor(client, a, first, claims, own);
    if ("answer" in held) return held.answer;
    const { claim, lease, scope } = held;
    attachments.setOwner(id, client);
    const done = a.gateway.route.run(a.facts, claim, scope?.signal ?? signal);
    running.set(id, {
      key: a.key,
      done,
      gateway: a.gateway,
      by: client.user?.name,
    });
    try {
      return await done;
    } finally {
      scope?.release();
      // The answer goes out once the lease says idle: another node may take the session next
      // (not while a queued prompt holds the turn now: it keeps the lease busy).
      if (lease.took && turns.claimOf(id)?.waited === undefined)
        await claims.turnEnded(id);
      running.delete(id);
      if (attachments.owner(id) === client) attachments.setOwner(id, undefined);
    }
  }
}
