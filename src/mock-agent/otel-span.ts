// The mock agent's `otelSpan` step: exports one span of its own, as an agent with an OTLP
// exporter does, over the OTEL_* variables it was started with (OTLP/HTTP JSON), in a trace of
// its own (a root span); reports the collector's HTTP status as text.
import { randomBytes } from "node:crypto";

// OTEL_EXPORTER_OTLP_HEADERS' `key=value,…` as headers.
function headersOf(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at > 0)
      out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1));
  }
  return out;
}

// Sends the span named `name`; the text says what the collector answered.
export async function exportOwnSpan(name: string): Promise<string> {
  const base = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (!base) return "otel: no OTEL_EXPORTER_OTLP_ENDPOINT\n";
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = {
    traceId: randomBytes(16).toString("hex"),
    spanId: randomBytes(8).toString("hex"),
    name,
    kind: 1,
    startTimeUnixNano: String(now - 1_000_000n),
    endTimeUnixNano: String(now),
    attributes: [
      {
        key: "mock.env.secret",
        value: { stringValue: process.env["MOCK_SECRET"] ?? "" },
      },
    ],
  };
  const service = process.env["OTEL_SERVICE_NAME"] ?? "mock-agent";
  const body = {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: "service.name", value: { stringValue: service } },
          ],
        },
        scopeSpans: [{ scope: { name: "mock-agent" }, spans: [span] }],
      },
    ],
  };
  try {
    const res = await fetch(`${base.replace(/\/+$/, "")}/v1/traces`, {
      method: "POST",
      headers: {
        ...headersOf(process.env["OTEL_EXPORTER_OTLP_HEADERS"]),
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel();
    return `otel: ${res.status}\n`;
  } catch (error) {
    return `otel: ${(error as Error).message}\n`;
  }
}
