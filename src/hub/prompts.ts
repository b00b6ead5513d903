// session/prompt through the hub: registered for session/cancel on arrival, checked (the
// session open here, the user may drive it), answered from the record when its idempotency key
// was seen, refused while another turn runs, else run on the session's gateway.
import { HubError } from "../shared/errors.js";
import type { LedgerPort } from "../engine/ports.js";
import type { HubUser } from "../contracts/users.js";
import type { SessionAccess } from "./access.js";
import type { Attachments, HubClient } from "./attachments.js";
import type { ClusterClaims } from "./cluster-claims.js";
import type { GatewayPool } from "./gateway-pool.js";
import { recordedAnswer } from "./recorded-prompts.js";
import type { RunningTurns } from "./running-turns.js";
import type { SessionChecks } from "./session-checks.js";
import { idempotencyKeyOf } from "./turn-records.js";

type Params = Record<string, unknown>;

/** The hub's parts a prompt goes through. */
export interface HubPromptsDeps {
  ledger: LedgerPort;
  access: SessionAccess;
  attachments: Attachments;
  checks: SessionChecks;
  gateways: GatewayPool;
  running: RunningTurns;
  claims: ClusterClaims;
  /** The name recorded as the prompt's author. */
  authorOf: (user: HubUser | undefined) => string | undefined;
}

export class HubPrompts {
  constructor(private readonly deps: HubPromptsDeps) {}

  // Registers the prompt for session/cancel before its first await (a cancel that follows it
  // on the wire finds it while its checks still run), then runs it.
  prompt(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
  ): Promise<Params> {
    return this.deps.running.arrive(String(params["sessionId"]), (arrival) =>
      this.promptChecked(client, params, AbortSignal.any([signal, arrival])),
    );
  }

  // "Is a turn running → who owns it → run the prompt" without an await in between, so a
  // refused prompt changes nothing: not the owner, the ledger, the title or the idempotency
  // record (the engine claims the turn before it records the prompt, too).
  private async promptChecked(
    client: HubClient,
    params: Params,
    signal: AbortSignal,
  ): Promise<Params> {
    const { access, attachments, running, claims } = this.deps;
    const record = await this.deps.checks.attachedRecord(
      client,
      params["sessionId"],
    );
    await access.mustDrive(client.user, record.id);
    const key = idempotencyKeyOf(params["_meta"]);
    const again = key
      ? await recordedAnswer(
          {
            ...this.deps,
            endUnended: (id) => claims.endUnended(id),
          },
          record.id,
          key,
        )
      : undefined;
    if (again) return again;
    const gateway = await this.deps.gateways.gatewayFor(record.agent);
    // Claimed before the check below, so that nothing awaits between it and running.set.
    const claimed = await claims.claimTurn(record.id);
    const live = running.get(record.id);
    if (live && key !== undefined && live.key === key) return live.done;
    if (live)
      throw new HubError(
        "PROMPT_IN_FLIGHT",
        `session ${record.id} already has a turn running`,
      );
    attachments.setOwner(record.id, client);
    const done = gateway.prompt(
      params,
      signal,
      this.deps.authorOf(client.user),
    );
    running.set(record.id, { key, done, gateway, by: client.user?.name });
    try {
      return await done;
    } finally {
      // The answer goes out once the lease says idle: another node may take the session next.
      if (claimed) await claims.turnEnded(record.id);
      running.delete(record.id);
      if (attachments.owner(record.id) === client)
        attachments.setOwner(record.id, undefined);
    }
  }
}
