// JSON-RPC error codes acphub answers agents with, beyond the standard ones.
import { RequestError } from "@agentclientprotocol/sdk";

export const WIRE_CODES = {
  /** ACP: the resource (file, session) does not exist. */
  resourceNotFound: -32002,
  /** acphub: the request was refused by policy or sandbox (a path outside the roots, a denied
   *  command). `data.reason` says which rule. */
  permissionDenied: -32001,
} as const;

export function resourceNotFound(
  message: string,
  data?: Record<string, unknown>,
): RequestError {
  return new RequestError(WIRE_CODES.resourceNotFound, message, data);
}

export function permissionDenied(
  message: string,
  data?: Record<string, unknown>,
): RequestError {
  return new RequestError(WIRE_CODES.permissionDenied, message, data);
}

export function invalidParams(
  message: string,
  data?: Record<string, unknown>,
): RequestError {
  return new RequestError(-32602, message, data);
}

/** A method acphub does not serve: never advertised, refused with the reason. */
export function notServed(method: string, reason: string): RequestError {
  return new RequestError(
    -32601,
    `acphub does not serve ${method}: ${reason}`,
    { method, reason },
  );
}
