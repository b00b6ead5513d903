// Protocol version handling: what a peer sent, and whether acphub can speak it.
import { SUPPORTED_PROTOCOL_VERSIONS } from "./methods.js";

export type VersionCheck =
  { ok: true; version: number } | { ok: false; reason: string };

// Checks the version an agent answered `initialize` with.
export function checkAgentProtocolVersion(value: unknown): VersionCheck {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return {
      ok: false,
      reason: `agent answered protocolVersion ${JSON.stringify(value)}, not an integer`,
    };
  }
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(value)) {
    return {
      ok: false,
      reason: `agent speaks protocol version ${value}; acphub speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    };
  }
  return { ok: true, version: value };
}

// Editors sometimes send a date string or a float: anything not a supported integer becomes 1.
export function normalizeProtocolVersion(value: unknown): {
  version: number;
  normalized: boolean;
} {
  if (
    typeof value === "number" &&
    SUPPORTED_PROTOCOL_VERSIONS.includes(value)
  ) {
    return { version: value, normalized: false };
  }
  return { version: 1, normalized: true };
}
