// Exit codes of the CLI, and the one conversion from HubError to an exit code.
import { isHubError, type HubErrorCode } from "../shared/errors.js";

export const EXIT_CODES = {
  ok: 0,
  error: 1,
  usage: 2,
  timeout: 3,
  noSession: 4,
  permissionDenied: 5,
  /** The turn stopped at a limit: stop reason `max_tokens` or `max_turn_requests`. */
  turnLimit: 6,
  /** The agent refused to continue: stop reason `refusal`. */
  refusal: 7,
  /** A budget (limits.budget) is spent: the prompt was refused before it ran. */
  budget: 8,
  interrupted: 130,
  /** stdout's reader went away (`| head -1`): 128 + SIGPIPE, as a shell reports it. */
  brokenPipe: 141,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const BY_CODE: Partial<Record<HubErrorCode, ExitCode>> = {
  USAGE: EXIT_CODES.usage,
  CONFIG_INVALID: EXIT_CODES.usage,
  AGENT_NOT_FOUND: EXIT_CODES.usage,
  LEDGER_UNAVAILABLE: EXIT_CODES.usage,
  TIMEOUT: EXIT_CODES.timeout,
  INIT_TIMEOUT: EXIT_CODES.timeout,
  SESSION_NOT_FOUND: EXIT_CODES.noSession,
  PERMISSION_DENIED: EXIT_CODES.permissionDenied,
  BUDGET_EXCEEDED: EXIT_CODES.budget,
  WORKFLOW_INVALID: EXIT_CODES.usage,
  WORKFLOW_NOT_FOUND: EXIT_CODES.usage,
  WORKFLOW_TIMEOUT: EXIT_CODES.timeout,
  WORKFLOW_GATE_REJECTED: EXIT_CODES.permissionDenied,
  SECRET_MISSING: EXIT_CODES.usage,
};

export function toExitCode(error: unknown): ExitCode {
  if (!isHubError(error)) return EXIT_CODES.error;
  return BY_CODE[error.code] ?? EXIT_CODES.error;
}
