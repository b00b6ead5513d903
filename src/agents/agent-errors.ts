// Maps JSON-RPC errors an agent answered with onto acphub's error codes.
import type { RequestError } from "@agentclientprotocol/sdk";
import { HubError, type HubErrorCode } from "../shared/errors.js";

const BY_WIRE_CODE: Record<number, HubErrorCode> = {
  [-32000]: "AUTH_REQUIRED",
  [-32002]: "SESSION_NOT_FOUND",
  [-32601]: "UNSUPPORTED",
};

export function fromAgentError(
  agent: string,
  method: string,
  error: RequestError,
): HubError {
  const code = BY_WIRE_CODE[error.code] ?? "AGENT_ERROR";
  return new HubError(
    code,
    `agent "${agent}" answered ${method} with error ${error.code}: ${error.message}`,
    {
      cause: error,
      details: { wireCode: error.code, data: error.data, method },
    },
  );
}

// The error for a method the agent did not advertise.
export function unsupported(
  agent: string,
  method: string,
  capability: string,
): HubError {
  return new HubError(
    "UNSUPPORTED",
    `agent "${agent}" does not support ${method} (it did not advertise ${capability})`,
    { details: { method, capability } },
  );
}
