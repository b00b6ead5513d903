// One table of method names: the SDK's, plus acphub's own extension names.
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

export { methods, PROTOCOL_VERSION };

/** Protocol versions acphub can speak. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

export const EXT_METHODS = {
  /** Echo extension the mock agent calls, to prove `_`-methods round-trip. */
  testEcho: "_acphub.test/echo",
} as const;

// Extension methods and notifications are the ones whose names start with `_`.
export function isExtensionMethod(method: string): boolean {
  return method.startsWith("_");
}
