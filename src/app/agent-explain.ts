// Plain words for why an agent could not be started or used, and what to do about it.
import { errorMessage, isHubError } from "../shared/errors.js";

// The explanation of an agent error; `message` is its message as shown (without its stderr).
export function explainAgentError(
  error: unknown,
  message = errorMessage(error),
): string {
  if (!isHubError(error)) return message;
  switch (error.code) {
    case "AGENT_SPAWN_FAILED":
      return `it is not installed or not on PATH. ${message}`;
    case "INIT_TIMEOUT":
      return message.includes("non-JSON")
        ? `it printed something other than ACP to stdout and never answered. ${message}`
        : `it did not answer initialize in time (npx installs can be slow the first time; raise timeouts.initializeMs). ${message}`;
    case "AGENT_EXITED":
      return `it exited before it was ready. ${message}`;
    case "PROTOCOL_VERSION":
      return `it speaks another protocol version. ${message}`;
    case "AGENT_PROTOCOL":
      return `it broke the protocol. ${message}`;
    case "AUTH_REQUIRED":
      return `it needs you to log in first (auth methods: ${JSON.stringify(error.details["authMethods"] ?? [])}); log in with the agent's own command, then try again.`;
    default:
      return message;
  }
}
