// Maps JSON-RPC errors an agent answered with onto acphub's error codes.
import type { RequestError } from "@agentclientprotocol/sdk";
import { HubError, type HubErrorCode } from "../shared/errors.js";

const BY_WIRE_CODE: Record<number, HubErrorCode> = {
  [-32000]: "AUTH_REQUIRED",
  [-32002]: "SESSION_NOT_FOUND",
  [-32601]: "UNSUPPORTED",
};

/** How much of an error's `data` goes into the message. */
export const MAX_ERROR_DATA_CHARS = 1000;

// The agent's own words in an error's `data` (often the real reason behind "Internal error"):
// a string, a `details` or `message` field, else the JSON; bounded.
export function errorDataText(data: unknown): string {
  if (data === undefined || data === null) return "";
  const d = data as { details?: unknown; message?: unknown };
  const text =
    typeof data === "string"
      ? data
      : typeof d.details === "string"
        ? d.details
        : typeof d.message === "string"
          ? d.message
          : (JSON.stringify(data) ?? "");
  return text.length > MAX_ERROR_DATA_CHARS
    ? `${text.slice(0, MAX_ERROR_DATA_CHARS)}…`
    : text;
}

export function fromAgentError(
  agent: string,
  method: string,
  error: RequestError,
): HubError {
  const code = BY_WIRE_CODE[error.code] ?? "AGENT_ERROR";
  const data = errorDataText(error.data);
  return new HubError(
    code,
    `agent "${agent}" answered ${method} with error ${error.code}: ${error.message}${data && data !== error.message ? `: ${data}` : ""}`,
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
