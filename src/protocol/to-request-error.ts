// The one conversion from acphub's errors to JSON-RPC errors an editor receives.
import { RequestError } from "@agentclientprotocol/sdk";
import {
  errorMessage,
  isHubError,
  type HubErrorCode,
} from "../shared/errors.js";

export const WIRE_CODE_OF: Record<HubErrorCode, number> = {
  USAGE: -32602,
  CONFIG_INVALID: -32603,
  AGENT_NOT_FOUND: -32603,
  AGENT_SPAWN_FAILED: -32603,
  AGENT_EXITED: -32603,
  AGENT_UNRESPONSIVE: -32603,
  AGENT_PROTOCOL: -32603,
  AGENT_ERROR: -32603,
  INIT_TIMEOUT: -32603,
  PROTOCOL_VERSION: -32603,
  AUTH_REQUIRED: -32000,
  UNSUPPORTED: -32601,
  PROMPT_IN_FLIGHT: -32602,
  SESSION_NOT_FOUND: -32002,
  PERMISSION_DENIED: -32001,
  LIMIT_EXCEEDED: -32602,
  BUDGET_EXCEEDED: -32602,
  POOL_FULL: -32603,
  TIMEOUT: -32603,
  CLOSED: -32603,
  LEDGER_UNAVAILABLE: -32603,
  INTERNAL: -32603,
  WORKFLOW_INVALID: -32602,
  WORKFLOW_NOT_FOUND: -32002,
  WORKFLOW_STEP_FAILED: -32603,
  WORKFLOW_GATE_REJECTED: -32001,
  WORKFLOW_TIMEOUT: -32603,
  SECRET_MISSING: -32602,
  REGISTRY_INVALID: -32603,
  INSTALL_REFUSED: -32603,
};

export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (!isHubError(error)) return new RequestError(-32603, errorMessage(error));
  if (error.code === "AGENT_ERROR") {
    // The agent's own error passes through with its code and data.
    const wire = error.details["wireCode"];
    const cause = error.cause as RequestError | undefined;
    if (typeof wire === "number")
      return new RequestError(
        wire,
        cause?.message ?? error.message,
        cause?.data,
      );
  }
  const data: Record<string, unknown> = {
    code: error.code,
    retryable: error.retryable,
  };
  for (const key of [
    "authMethods",
    "stderrTail",
    "code",
    "signal",
    "file",
    "step",
    "retryAfterS",
    "budget",
    "node",
    "takeoverAt",
    "reason",
    "queueId",
  ] as const) {
    if (error.details[key] !== undefined)
      data[key === "code" ? "exitCode" : key] = error.details[key];
  }
  return new RequestError(WIRE_CODE_OF[error.code], error.message, data);
}

// Runs a handler and converts whatever it throws to a wire error.
export async function edge<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toRequestError(error);
  }
}
