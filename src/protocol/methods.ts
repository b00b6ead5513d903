// The SDK's method names, the protocol versions acphub speaks, and what an extension method is.
// Names come from the unstable entry point: it names the unstable methods too (fork, status…).
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";

export { methods, PROTOCOL_VERSION };

/** Methods of earlier unstable schemas that agents still use; not in the SDK's tables. */
export const LEGACY_METHODS = {
  /** Switches a session's model among the `models` it reported (claude-code-acp). */
  setModel: "session/set_model",
} as const;

/** Protocol versions acphub can speak. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

// Extension methods and notifications are the ones whose names start with `_`.
export function isExtensionMethod(method: string): boolean {
  return method.startsWith("_");
}
