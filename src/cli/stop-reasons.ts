// How a turn ended, for people (a line on stderr) and scripts (the exit code), when it did
// not simply end (`end_turn`).
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

const STOPS: Record<string, { exit: ExitCode; says: string }> = {
  max_tokens: {
    exit: EXIT_CODES.turnLimit,
    says: "the agent reached its token limit",
  },
  max_turn_requests: {
    exit: EXIT_CODES.turnLimit,
    says: "the agent reached its limit of model requests for one turn",
  },
  refusal: { exit: EXIT_CODES.refusal, says: "the agent refused to continue" },
  cancelled: {
    exit: EXIT_CODES.interrupted,
    says: "the turn was cancelled",
  },
};

// The exit code for a stop reason (0 for end_turn and for reasons acphub does not know yet).
export function stopExitCode(stopReason: string): ExitCode {
  return STOPS[stopReason]?.exit ?? EXIT_CODES.ok;
}

// The line said on stderr for a turn that did not end with end_turn; undefined for end_turn.
export function stopLine(stopReason: string): string | undefined {
  if (stopReason === "end_turn") return undefined;
  const says =
    STOPS[stopReason]?.says ?? "the turn ended with an unfamiliar stop reason";
  return `acphub: ${says} (stop reason: ${stopReason})`;
}
