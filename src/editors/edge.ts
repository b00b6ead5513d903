// What every editor-facing handler does at the edge: take params as sent (pass-through
// parser) and turn acphub's errors into the SDK's RequestError.
import { RequestError } from "@agentclientprotocol/sdk";
import { toRequestError } from "./to-request-error.js";

export type Params = Record<string, unknown>;

// The pass-through params parser: any JSON object, unchanged (unknown fields kept).
export function raw(params: unknown): Params {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw RequestError.invalidParams(undefined, "params must be an object");
  }
  return params as Params;
}

// Runs a handler and converts whatever it throws to a wire error.
export async function edge<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toRequestError(error);
  }
}
