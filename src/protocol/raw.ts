// The pass-through parser every relaying handler uses: params must be an object; everything
// inside (unknown fields, `_meta`) passes untouched, as a gateway must relay it.
import { RequestError } from "@agentclientprotocol/sdk";

/** Params as received on the wire: an object whose fields acphub does not presume. */
export type Params = Record<string, unknown>;

// Validates only that params are an object, so the SDK's typed parsers strip nothing.
export function raw<T = Params>(params: unknown): T {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw RequestError.invalidParams(undefined, "params must be an object");
  }
  return params as T;
}
