// The one error type acphub throws internally. Converted to wire errors or exit codes only at
// the edges (cli/exit-codes.ts and editors/to-request-error.ts).

export const HUB_ERROR_CODES = [
  "USAGE",
  "CONFIG_INVALID",
  "AGENT_NOT_FOUND",
  "AGENT_SPAWN_FAILED",
  "AGENT_EXITED",
  "AGENT_UNRESPONSIVE",
  "AGENT_PROTOCOL",
  "AGENT_ERROR",
  "INIT_TIMEOUT",
  "PROTOCOL_VERSION",
  "AUTH_REQUIRED",
  "UNSUPPORTED",
  "PROMPT_IN_FLIGHT",
  "SESSION_NOT_FOUND",
  "PERMISSION_DENIED",
  "LIMIT_EXCEEDED",
  "BUDGET_EXCEEDED",
  "POOL_FULL",
  "TIMEOUT",
  "CLOSED",
  "LEDGER_UNAVAILABLE",
  "INTERNAL",
  "WORKFLOW_INVALID",
  "WORKFLOW_NOT_FOUND",
  "WORKFLOW_STEP_FAILED",
  "WORKFLOW_GATE_REJECTED",
  "WORKFLOW_TIMEOUT",
  "SECRET_MISSING",
  "REGISTRY_INVALID",
  "INSTALL_REFUSED",
] as const;

export type HubErrorCode = (typeof HUB_ERROR_CODES)[number];

export interface HubErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

export class HubError extends Error {
  readonly code: HubErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: HubErrorCode,
    message: string,
    options: HubErrorOptions = {},
  ) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "HubError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

// Narrowing helper so callers can branch on codes without instanceof chains.
export function isHubError(
  error: unknown,
  code?: HubErrorCode,
): error is HubError {
  return (
    error instanceof HubError && (code === undefined || error.code === code)
  );
}

// Gives any thrown value a readable message, for logs and error lines.
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** The errors of an acphub hub (the agent of `acp --hub`, `run --hub`) that keep their own code
 *  on this side: a refusal (a spent budget, a viewer's prompt, a quota) said in the hub's words,
 *  which the CLI maps to the exit code of its own kind. */
const HUBS_OWN: readonly HubErrorCode[] = [
  "BUDGET_EXCEEDED",
  "PERMISSION_DENIED",
  "LIMIT_EXCEEDED",
];

// A hub's refusal, answered as a JSON-RPC error whose `data.code` names acphub's code, as the
// same HubError a local acphub would throw (its message, code and details); else `error`.
export function hubsOwnError(error: unknown): unknown {
  if (!isHubError(error, "AGENT_ERROR")) return error;
  const data = error.details["data"] as Record<string, unknown> | undefined;
  const cause = error.cause as { message?: unknown } | undefined;
  const code = HUBS_OWN.find((c) => c === data?.["code"]);
  if (!code || !data || typeof cause?.message !== "string") return error;
  const { code: _code, retryable, ...details } = data;
  return new HubError(code, cause.message, {
    cause: error,
    retryable: retryable === true,
    details,
  });
}
