// The ACP handshake with an agent: `initialize` under a timeout (and the caller's signal), with
// acphub's client capabilities from its host, and the agent's protocol version checked.
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import type { ClientHost } from "../contracts/client-host.js";
import { hostCapabilities } from "../contracts/client-host.js";
import { methods, PROTOCOL_VERSION } from "../protocol/methods.js";
import { checkAgentProtocolVersion } from "../protocol/version.js";
import { HubError } from "../shared/errors.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import type { AgentTransport } from "./agent-transport.js";

// Sends `initialize`; a timeout, an abort or a bad protocol version fails the transport.
export async function initializeAgent(
  transport: AgentTransport,
  host: ClientHost | undefined,
  signal?: AbortSignal,
): Promise<InitializeResponse> {
  const ms = transport.limits.initializeTimeoutMs;
  const name = transport.launch.name;
  const timer = setTimeout(() => {
    const message = `agent "${name}" did not answer initialize within ${ms} ms${transport.noiseHint()}`;
    const details = { stderrTail: transport.process.stderrTail() };
    transport.fail(
      new HubError("INIT_TIMEOUT", message, { retryable: true, details }),
    );
  }, ms);
  const onAbort = () =>
    transport.fail(new HubError("CLOSED", "connecting was aborted"));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await transport.call<InitializeResponse>(
      methods.agent.initialize,
      {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {
          ...hostCapabilities(host),
          ...host?.relayedCapabilities?.(),
        },
        clientInfo: {
          name: "acphub",
          title: "acphub",
          version: ACPHUB_VERSION,
        },
      },
    );
    const version = checkAgentProtocolVersion(response.protocolVersion);
    if (!version.ok) {
      const error = new HubError("PROTOCOL_VERSION", version.reason);
      transport.fail(error);
      throw error;
    }
    transport.initializeResponse = response;
    return response;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
