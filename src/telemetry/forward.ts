// Where acphub's own exporter sends traces, for the agents' spans the receiver forwards: the
// same URL and headers the OTLP exporter uses (telemetry.endpoint or the OTEL_* variables).
import type { TraceSettings } from "./settings.js";

type Env = Record<string, string | undefined>;

/** How long one forwarded export may take. */
const FORWARD_TIMEOUT_MS = 10_000;

// OTEL_EXPORTER_OTLP_HEADERS' `key=value,…` (values URL-encoded) as headers.
export function otlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try {
      out[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      out[key] = pair.slice(at + 1).trim();
    }
  }
  return out;
}

// The traces URL: the settings' own, else the variables the exporter reads.
export function tracesUrl(s: TraceSettings, env: Env): string | undefined {
  if (s.url) return s.url;
  const own = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"];
  if (own) return own;
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}

// A function posting one OTLP JSON export request where acphub's spans go.
export function forwarder(
  s: TraceSettings,
  env: Env = process.env,
): (body: string) => Promise<void> {
  const url = tracesUrl(s, env);
  const headers = {
    ...otlpHeaders(env["OTEL_EXPORTER_OTLP_HEADERS"]),
    ...otlpHeaders(env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"]),
    "content-type": "application/json",
  };
  return async (body) => {
    if (!url) return;
    const res = await fetch(url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`the collector answered ${res.status}`);
  };
}
