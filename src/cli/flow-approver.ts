// `flow run` at a terminal: gates and the step agents' permission requests are asked of the
// person, one question at a time, each naming its step and agent (`look · mock`) and what it
// wants — never the tool call's raw, step-prefixed id.
import { createInterface } from "node:readline/promises";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { askingApprover, type AskLine } from "../app/flow-gates.js";
import {
  stepLabel,
  type Approver,
  type WorkflowStep,
} from "../app/flow-run.js";
import { ownMetaOf } from "../shared/hub-extension.js";
import { safeText } from "./tty/safe-text.js";

// Questions on stderr, answers from stdin; parallel steps' questions wait their turn.
export function terminalAsker(): AskLine {
  let turn = Promise.resolve();
  return (question, signal) => {
    const asked = turn.then(async () => {
      const rl = createInterface({
        input: process.stdin,
        output: process.stderr,
      });
      try {
        return await rl.question(question, { signal });
      } finally {
        rl.close();
      }
    });
    turn = asked.then(
      () => undefined,
      () => undefined,
    );
    return asked;
  };
}

// The question for a step agent's request: who asks, what (its title, else its kind), and the
// command or path it names; agent text made inert.
export function permissionQuestion(
  steps: readonly WorkflowStep[],
  request: RequestPermissionRequest,
): string {
  const { step } = ownMetaOf(request._meta);
  const who = typeof step === "string" ? stepLabel(steps, step) : "the agent";
  const { title, kind, rawInput } = request.toolCall;
  const raw = rawInput as { command?: unknown; path?: unknown } | undefined;
  const detail =
    raw?.command !== undefined
      ? `\n  command: ${[raw.command].flat().join(" ")}`
      : typeof raw?.path === "string"
        ? `\n  path: ${raw.path}`
        : "";
  const what = `${title ?? kind ?? "permission"}${title && kind ? ` (${kind})` : ""}`;
  return `\n[permission] ${safeText(`${who} asks: ${what}${detail}`)}\nallow? [y/N] `;
}

/** The approver of `flow run` at a terminal: y allows once, anything else refuses once. */
export function flowApprover(
  steps: readonly WorkflowStep[],
  ask: AskLine,
): Approver {
  return askingApprover((request) => permissionQuestion(steps, request), ask);
}
