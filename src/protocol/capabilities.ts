// The capabilities acphub advertises, derived from the method table: to the editor, what
// acphub serves plus what the agent offers and acphub forwards; to the agent, what the editor
// offers and acphub relays. Never the agent's capabilities spread wholesale.
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { ACPHUB_VERSION } from "../shared/version.js";
import { METHOD_TABLE, type MethodEntry } from "./method-table.js";
import type { Params } from "./raw.js";

type Caps = Record<string, unknown>;

// Capabilities that describe what may be *in* a request acphub relays unchanged (prompt
// content types, MCP server transports, extra session parameters): taken from the agent.
const PARAMETER_CAPABILITIES: readonly (readonly string[])[] = [
  ["promptCapabilities"],
  ["mcpCapabilities", "http"],
  ["mcpCapabilities", "sse"],
  ["sessionCapabilities", "additionalDirectories"],
  ["sessionCapabilities", "systemPrompt"],
  ["_meta"],
];

/** The value at `path` in a capabilities object, or undefined. */
export function capabilityAt(caps: unknown, path: readonly string[]): unknown {
  let node: unknown = caps;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Caps)[key];
  }
  return node;
}

/** Whether a capability is advertised: present, not null, not false. */
export function hasCapability(caps: unknown, path: readonly string[]): boolean {
  const value = capabilityAt(caps, path);
  return value !== undefined && value !== null && value !== false;
}

// Sets `value` at `path`, creating objects on the way.
function setAt(caps: Caps, path: readonly string[], value: unknown): void {
  let node = caps;
  path.slice(0, -1).forEach((key) => {
    const next = node[key];
    node[key] = next && typeof next === "object" ? next : {};
    node = node[key] as Caps;
  });
  node[path.at(-1) as string] = value;
}

// The value acphub advertises for a served capability (booleans stay booleans).
function servedValue(path: readonly string[]): unknown {
  return path.length === 1 && path[0] === "loadSession" ? true : {};
}

/** Whether an entry is available given the peer's capabilities. */
export function isAvailable(entry: MethodEntry, peerCaps: unknown): boolean {
  switch (entry.handling) {
    case "served":
      return true;
    case "forwarded":
    case "relayed":
      return !entry.capability || hasCapability(peerCaps, entry.capability);
    case "refused":
      return false;
  }
}

// Capabilities of entries whose handling is `kinds`, for the editor or the agent side.
function derive(
  from: "editor" | "agent",
  peerCaps: unknown,
  kinds: readonly string[],
): Caps {
  const out: Caps = {};
  for (const entry of METHOD_TABLE) {
    if (entry.from === (from === "editor" ? "agent" : "editor")) continue;
    if (!entry.capability || !kinds.includes(entry.handling)) continue;
    if (entry.handling === "served")
      setAt(out, entry.capability, servedValue(entry.capability));
    else if (isAvailable(entry, peerCaps))
      setAt(out, entry.capability, capabilityAt(peerCaps, entry.capability));
  }
  return out;
}

/** `agentCapabilities` for acphub's answer to the editor's `initialize`. */
export function editorFacingCapabilities(agentCaps: unknown): Caps {
  const out = derive("editor", agentCaps, ["served", "forwarded"]);
  for (const path of PARAMETER_CAPABILITIES) {
    const value = capabilityAt(agentCaps, path);
    if (value !== undefined && value !== null) setAt(out, path, value);
  }
  out["loadSession"] ??= true;
  out["sessionCapabilities"] ??= {};
  return out;
}

/** Client capabilities acphub adds toward the agent for what it relays to the editor. */
export function relayedClientCapabilities(editorCaps: unknown): Caps {
  return derive("agent", editorCaps, ["relayed"]);
}

// acphub's `initialize` answer to an editor, under its own name, from the agent's answer.
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
