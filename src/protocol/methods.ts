// The SDK's method table, the protocol versions acphub speaks, and what an extension method is.
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

export { methods, PROTOCOL_VERSION };

/** Protocol versions acphub can speak. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

// Extension methods and notifications are the ones whose names start with `_`.
export function isExtensionMethod(method: string): boolean {
  return method.startsWith("_");
}
