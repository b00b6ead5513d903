// acphub's `initialize` answer to an editor: the agent's capabilities, merged with the session
// methods acphub serves from its ledger whatever the agent supports, under acphub's own name.
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import type { Params } from "../protocol/raw.js";
import { ACPHUB_VERSION } from "../shared/version.js";

// Merges the agent's initialize response with what the gateway adds.
export function initializeAnswer(
  init: InitializeResponse | undefined,
  agentName: string,
): Params {
  const caps = init?.agentCapabilities ?? {};
  const info = init?.agentInfo;
  return {
    protocolVersion: 1,
    agentCapabilities: {
      ...caps,
      loadSession: true,
      sessionCapabilities: {
        ...(caps["sessionCapabilities"] as Params),
        list: {},
        resume: {},
        close: {},
        delete: {},
      },
    },
    authMethods: init?.authMethods ?? [],
    agentInfo: {
      name: "acphub",
      title: `acphub → ${info?.title ?? info?.name ?? agentName}`,
      version: ACPHUB_VERSION,
    },
    ...(init?._meta ? { _meta: init._meta } : {}),
  };
}
