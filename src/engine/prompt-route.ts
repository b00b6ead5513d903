// Where a prompt goes once it is admitted and holds its session's turn: one of acphub's session
// commands (a workflow's /name) runs here; anything else is a turn of the agent's live session
// (restored first when it is not live), with the session's model noted. What it needs to know
// first (the measured prompt, the command it names) is gathered once, for the admission too.
import { isHubError } from "../shared/errors.js";
import type { Params } from "../protocol/raw.js";
import {
  admit,
  budgetCheck,
  measurePrompt,
  promptSizeLimit,
  type AdmissionCheck,
  type PromptFacts,
  type Release,
} from "./admission.js";
import { liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import type { SessionRecord } from "./ports.js";
import { requireRecord } from "./session-ops.js";
import { promptCommand, runSessionCommand } from "./session-commands.js";
import { modelOf } from "./session-settings.js";
import type { TurnClaim } from "./turn-gate.js";
import { promptLive } from "./turns.js";

// The facts the admission and the route read of a prompt: measured once, its command found once.
export async function promptFacts(
  parts: GatewayParts,
  record: SessionRecord,
  params: Params,
  author: string | undefined,
): Promise<PromptFacts> {
  const prompt = measurePrompt(params);
  const command = await promptCommand(parts.commands, record, prompt.blocks);
  return {
    record,
    prompt,
    ...(author !== undefined ? { author } : {}),
    ...(command && parts.commands ? { command } : {}),
  };
}

// The admission's checks of a prompt in order: the size limit, any quotas, the budgets.
export function engineChecks(
  parts: GatewayParts,
  quotas: AdmissionCheck[] = [],
): AdmissionCheck[] {
  return [
    promptSizeLimit(parts.limits.maxPromptBytes),
    ...quotas,
    budgetCheck(parts.budget),
  ];
}

/** A prompt's path, for a caller that admits it and claims its turn itself (the hub). */
export interface PromptRoute {
  /** What the admission and the run read of a prompt: measured once, its command found. */
  facts(
    record: SessionRecord,
    params: Params,
    author: string | undefined,
  ): Promise<PromptFacts>;
  /** The admission's checks in order: the gateway's size limit, the caller's (a hub's user
   *  quotas), the budgets. */
  checks(quotas?: AdmissionCheck[]): AdmissionCheck[];
  /** Admits the prompt through those checks; a refusal is told to the gateway's listeners. */
  admit(facts: PromptFacts, quotas?: AdmissionCheck[]): Promise<Release>;
  /** Runs the admitted prompt holding its session's turn; the claim is released at its end. */
  run(
    facts: PromptFacts,
    claim: TurnClaim,
    signal: AbortSignal,
  ): Promise<Params>;
}

// Admits a prompt through `checks`; a refusal is told to the listeners first (tracing gives it
// a span in error, so a trace shows why nothing ran), whoever admits it (stdio, run, the hub).
export async function admitTold(
  parts: Pick<GatewayParts, "events">,
  checks: AdmissionCheck[],
  facts: PromptFacts,
): Promise<Release> {
  try {
    return await admit(checks, facts);
  } catch (error) {
    if (isHubError(error))
      parts.events.promptRefused({
        sessionId: facts.record.id,
        ...(facts.author !== undefined ? { author: facts.author } : {}),
        code: error.code,
        message: error.message,
      });
    throw error;
  }
}

// The gateway's prompt path, in parts.
export function promptRoute(parts: GatewayParts): PromptRoute {
  return {
    facts: (record, params, author) =>
      promptFacts(parts, record, params, author),
    checks: (quotas) => engineChecks(parts, quotas),
    admit: (facts, quotas) =>
      admitTold(parts, engineChecks(parts, quotas), facts),
    run: (facts, claim, signal) => routePrompt(parts, facts, claim, signal),
  };
}

// A prompt to this gateway alone (stdio, run, chat): registered for session/cancel before its
// first await, admitted (the session read once, the prompt measured once), then run holding the
// session's turn (limits.busyPrompt: refused while one runs, or that one cancelled).
export async function promptHere(
  parts: GatewayParts,
  params: Params,
  signal: AbortSignal,
  author: string | undefined,
): Promise<Params> {
  const turns = parts.sessions.turns;
  const scope = turns.cancelScope(String(params["sessionId"]), signal);
  try {
    const record = await requireRecord(parts, params["sessionId"]);
    const facts = await promptFacts(parts, record, params, author);
    const release = await admitTold(parts, engineChecks(parts), facts);
    try {
      const claim =
        parts.limits.busyPrompt === "cancel"
          ? await turns.claimCancelling(record.id)
          : turns.claim(record.id);
      return await routePrompt(parts, facts, claim, scope.signal);
    } finally {
      release();
    }
  } finally {
    scope.release();
  }
}

// Runs an admitted prompt under its claim (released at its end): as a session command, or as the
// agent's turn.
export async function routePrompt(
  parts: GatewayParts,
  facts: PromptFacts,
  claim: TurnClaim,
  signal: AbortSignal,
): Promise<Params> {
  try {
    return await routeClaimed(parts, facts, claim, signal);
  } finally {
    claim.release();
  }
}

async function routeClaimed(
  parts: GatewayParts,
  facts: PromptFacts,
  claim: TurnClaim,
  signal: AbortSignal,
): Promise<Params> {
  const { record, prompt, author, command } = facts;
  if (command && parts.commands)
    return await runSessionCommand(
      parts,
      parts.commands,
      record,
      prompt.blocks,
      { ...command, author },
      signal,
      claim,
    );
  const meta = prompt.params["_meta"] as Params | undefined;
  const live = await liveSession(parts, record);
  const model = modelOf(await parts.settings.get(record.id));
  return await promptLive(
    parts,
    record,
    live,
    {
      blocks: prompt.blocks,
      ...(meta ? { meta } : {}),
      ...(author ? { author } : {}),
      ...(model ? { model } : {}),
    },
    signal,
    claim,
  );
}
