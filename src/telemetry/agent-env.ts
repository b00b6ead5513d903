// What an agent acphub spawns is told about telemetry (the ACP draft "agent telemetry export"):
// the standard OTEL_* variables pointing at acphub's own loopback receiver, with a token only
// that receiver accepts, and the agent's own switch. Never the operator's endpoint or headers
// (issue 36), and never over a variable the user set for the agent.

/** The header an agent's exporter sends its token in (OTEL_EXPORTER_OTLP_HEADERS). */
export const AGENT_TOKEN_HEADER = "x-acphub-agent-token";

/** Each known agent's own switch, by acphub's agent name (docs/observability.md). */
// prettier-ignore
export const AGENT_TELEMETRY_SWITCHES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  claude: { CLAUDE_CODE_ENABLE_TELEMETRY: "1" },
  gemini: {
    GEMINI_TELEMETRY_ENABLED: "true",
    GEMINI_TELEMETRY_TARGET: "local",
    GEMINI_TELEMETRY_OTLP_PROTOCOL: "http",
  },
};

/** Variables naming where an agent exports: one the user set means they chose their own. */
const OWN_ENDPOINT = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
];

// The agent's environment with the telemetry variables added where the user set none; an agent
// whose config names its own endpoint is left exactly as it was.
export function withAgentTelemetry(
  agentName: string,
  env: Record<string, string>,
  receiver: { endpoint: string; token: string },
): Record<string, string> {
  if (OWN_ENDPOINT.some((name) => env[name] !== undefined)) return env;
  const added: Record<string, string> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_HEADERS: `${AGENT_TOKEN_HEADER}=${receiver.token}`,
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_SERVICE_NAME: agentName,
    ...AGENT_TELEMETRY_SWITCHES[agentName],
  };
  const merged = { ...added, ...env };
  // Headers the user gave without an endpoint still reach only this receiver: add its token.
  if (env["OTEL_EXPORTER_OTLP_HEADERS"])
    merged["OTEL_EXPORTER_OTLP_HEADERS"] =
      `${env["OTEL_EXPORTER_OTLP_HEADERS"]},${added["OTEL_EXPORTER_OTLP_HEADERS"]}`;
  return merged;
}
