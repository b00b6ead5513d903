// The hub's one admission step for a prompt: the session read once (it exists, the user may see
// and drive it, it is open on this connection), an idempotency key already seen answered from
// its record, then the prompt measured once and checked in order — the gateway's size limit,
// the user's quotas, the budgets — and noted in the audit log with its size.
import type { PromptFacts, Release } from "../engine/admission.js";
import type { Gateway } from "../engine/gateway.js";
import type { HubUser } from "../contracts/users.js";
import type { SessionAccess } from "./access.js";
import type { HubClient } from "./attachments.js";
import type { Quotas } from "./quotas.js";
import {
  recordedAnswer,
  type RecordedPromptSources,
} from "./recorded-prompts.js";
import type { SessionChecks } from "./session-checks.js";
import type { SessionProcesses } from "./session-processes.js";
import { idempotencyKeyOf } from "./turn-records.js";

type Params = Record<string, unknown>;

/** What the admission reads. */
export interface PromptAdmissionDeps extends RecordedPromptSources {
  access: SessionAccess;
  checks: SessionChecks;
  /** The session's agent process: its owner's, remembered from its open. */
  processes: SessionProcesses;
  /** The name recorded as the prompt's author. */
  authorOf: (user: HubUser | undefined) => string | undefined;
  /** True when the prompt asks to queue and its session's turn is held now (prompt-queue.ts). */
  waits?: (sessionId: string, params: Params) => boolean;
}

/** A prompt let in: what its run reads, the gateway that runs it, what it holds until it ends. */
export interface AdmittedPrompt {
  facts: PromptFacts;
  gateway: Gateway;
  key: string | undefined;
  release: Release;
}

/** The admission's outcome: a prompt to run, or the recorded answer of one already run. */
export type Admission = AdmittedPrompt | { answer: Params };

// Admits a prompt of a client (with the user's quotas, when the hub has any).
export async function admitPrompt(
  deps: PromptAdmissionDeps,
  client: HubClient,
  params: Params,
  quotas: Quotas | undefined,
): Promise<Admission> {
  const record = await deps.checks.drivenRecord(client, params["sessionId"]);
  const key = idempotencyKeyOf(params["_meta"]);
  const again = key ? await recordedAnswer(deps, record.id, key) : undefined;
  if (again) return { answer: again };
  const gateway = await deps.processes.gatewayOf(record);
  const route = gateway.route;
  const facts = await route.facts(record, params, deps.authorOf(client.user));
  if (deps.waits?.(record.id, params)) facts.waits = true;
  const quota = quotas ? [quotas.check(client.user)] : [];
  // A refusal is told to the gateway's listeners: traced like `acp`'s, as the user's.
  const release = await route.admit(facts, quota);
  if (!client.routed)
    deps.access.note(client.user, "prompt", record.id, {
      bytes: facts.prompt.bytes,
    });
  return { facts, gateway, key, release };
}
