// The requests about one session that may run on another node of a cluster: each is answered
// on the session's gateway here, or carried to the live node that runs it (cluster-claims.ts);
// cancel, close and delete, and an admin's move restoring the agent here. SessionHub delegates
// to it; callers outside hub/ keep calling the hub.
import type { Gateway } from "../engine/gateway.js";
import type { LedgerPort, SessionRecord } from "../engine/ports.js";
import type { TurnGate } from "../engine/turn-gate.js";
import type { SessionAccess } from "./access.js";
import type { Attachments, HubClient } from "./attachments.js";
import type { ClusterClaims } from "./cluster-claims.js";
import type { GatewayPool } from "./gateway-pool.js";
import type { PromptQueue } from "./prompt-queue.js";
import type { SessionRunner } from "./runner.js";
import type { RunningTurns } from "./running-turns.js";
import type { SessionChecks } from "./session-checks.js";
import type { SessionProcesses } from "./session-processes.js";

type Params = Record<string, unknown>;

/** The hub's parts these requests go through. */
export interface SessionCallsDeps {
  ledger: LedgerPort;
  runner?: SessionRunner;
  access: SessionAccess;
  attachments: Attachments;
  checks: SessionChecks;
  running: RunningTurns;
  turns: TurnGate;
  gateways: GatewayPool;
  processes: SessionProcesses;
  claims: ClusterClaims;
  queue: PromptQueue;
}

export class SessionCalls {
  constructor(private readonly deps: SessionCallsDeps) {}

  async cancel(params: Params, client?: HubClient): Promise<void> {
    const { access, gateways, turns, running, runner } = this.deps;
    const record = await this.deps.ledger.getSession(
      String(params["sessionId"]),
    );
    if (!record) return;
    if (client) await access.mustDrive(client.user, record.id);
    // The one registry: prompts on their way, a turn or a session command running.
    const live = gateways.holding(record.id);
    if (live) live.cancel(params);
    else turns.cancel(record.id);
    if (running.has(record.id) || !runner) return;
    await runner.relayCancel(record.id);
    // A runner that stopped answering cannot hear it: the client is told when it is taken over.
    if (client) await this.deps.claims.takeovers.cancelled(record.id, client);
  }

  // Closing a session detaches this connection; the agent's session ends only when nobody
  // else is attached and no turn another user drives runs (issue 34), on the node running it.
  async closeSession(client: HubClient, params: Params): Promise<Params> {
    const { attachments, running, processes } = this.deps;
    const record = await this.deps.checks.record(params["sessionId"], client);
    attachments.detach(client, record.id);
    if (attachments.attached(record.id).length > 0) return {};
    const signal = new AbortController().signal;
    const user = client.user?.name;
    return this.onRunner(
      client,
      record,
      "session/close",
      params,
      signal,
      (g) =>
        running.drivenByOther(record.id, user) ? {} : g.closeSession(params),
      (r) => processes.enderOf(r),
    ) as Promise<Params>;
  }

  // A request about a session on its gateway here, or carried to the live node that runs it.
  async onRunner(
    client: HubClient,
    record: SessionRecord,
    method: string,
    params: Params,
    signal: AbortSignal,
    here: (gateway: Gateway) => unknown,
    /** The gateway here: the session's own process (close: the one it is live in). */
    gatewayOf = (r: SessionRecord) => this.deps.processes.gatewayOf(r),
  ): Promise<unknown> {
    return this.hereOrRunner(client, record, method, params, signal, async () =>
      here(await gatewayOf(record)),
    );
  }

  // A request about a session run here, or carried to the live node that runs it.
  async hereOrRunner(
    client: HubClient,
    record: SessionRecord,
    method: string,
    params: Params,
    signal: AbortSignal,
    here: () => unknown,
  ): Promise<unknown> {
    const call = { client, method, params, signal };
    const placed = await this.deps.claims.claimOrRoute(record.id, call, false);
    if ("answer" in placed) return placed.answer;
    return here();
  }

  /** Restores the session's agent here (an admin moved the session to this node). */
  async restoreHere(sessionId: string): Promise<Params> {
    const { processes, claims } = this.deps;
    const record = await this.deps.checks.record(sessionId);
    const run = await processes.openRun(record);
    return processes.using(run, async (gateway) => {
      processes.remember(record.id, run);
      return claims.restoreIfHeld(record.id, gateway);
    });
  }

  async deleteSession(params: Params, client?: HubClient): Promise<Params> {
    const { access, queue, processes, attachments } = this.deps;
    const record = await this.deps.checks.record(params["sessionId"], client);
    if (client) await access.mustOwn(client.user, record.id);
    await queue.clear(record.id, "revoked", client?.user?.name ?? "admin");
    const result = await (
      await processes.enderOf(record)
    ).deleteSession(params);
    attachments.forgetSession(record.id);
    processes.forget(record.id);
    return result;
  }
}
