// How `flow run` answers what a run asks, whoever asks the person: a gate is approved by
// --approve, else by the person's answer, else (nobody to ask) refused and the run waits there;
// a step agent's permission request is allowed once on "y", refused once on anything else.
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { outcomeFor } from "../protocol/permission-options.js";
import { HubError } from "../shared/errors.js";
import type { GateQuestion } from "../workflows/ports.js";
import { outcomeError, type RunOutcome } from "../workflows/runner.js";
import type { Approver, GatePort } from "./flow-run.js";

/** Asks one question and resolves with the line the person typed. */
export type AskLine = (
  question: string,
  signal: AbortSignal,
) => Promise<string>;

// "y" or "yes", any case: the only answers that approve.
const approves = (answer: string) => /^y(es)?$/i.test(answer.trim());

// The gates of a run: `approve` answers yes; `ask` (a terminal) asks; with neither, refused.
export function gatePolicy(
  approve: boolean,
  ask: AskLine | undefined,
  question: (q: GateQuestion) => string,
  refusedUnasked: () => void,
): GatePort {
  return {
    ask: async (q, signal) => {
      if (approve) return true;
      if (!ask) return void refusedUnasked();
      return approves(await ask(question(q), signal));
    },
  };
}

// The step agents' approver: each request asked as `question` puts it.
export function askingApprover(
  question: (request: RequestPermissionRequest) => string,
  ask: AskLine,
): Approver {
  return async (request, signal) => {
    const yes = approves(await ask(question(request), signal));
    return outcomeFor(yes ? "allow" : "reject", request.options);
  };
}

// The error for how a run ended (none when it completed), saying how to go on with it.
export function flowRunError(
  outcome: RunOutcome,
  runId: string,
  unasked: boolean,
): HubError | undefined {
  const error = outcomeError(outcome);
  if (!error) return undefined;
  if (unasked && outcome.status === "waiting")
    error.message = `the gate ${outcome.step} needs an answer and there is no terminal to ask: the run waits there (approve it with acphub flow resume ${runId} --approve)`;
  else
    error.message += ` (run ${runId}; continue with acphub flow resume ${runId})`;
  return error;
}
