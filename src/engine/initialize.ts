// acphub's `initialize` answer to an editor, under acphub's own name: the capabilities derived
// from the method table (what acphub serves, and what the agent offers that acphub forwards).
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { editorFacingCapabilities } from "../protocol/capabilities.js";
import type { Params } from "../protocol/raw.js";
import { ACPHUB_VERSION } from "../shared/version.js";

// The answer to the editor's initialize, from the agent's.
export function initializeAnswer(
  init: InitializeResponse | undefined,
  agentName: string,
): Params {
  const info = init?.agentInfo;
  return {
    protocolVersion: 1,
    agentCapabilities: editorFacingCapabilities(init?.agentCapabilities),
    authMethods: init?.authMethods ?? [],
    agentInfo: {
      name: "acphub",
      title: `acphub → ${info?.title ?? info?.name ?? agentName}`,
      version: ACPHUB_VERSION,
    },
    ...(init?._meta ? { _meta: init._meta } : {}),
  };
}
