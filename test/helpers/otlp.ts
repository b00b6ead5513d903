// A small OTLP/HTTP receiver for tests: accepts POST /v1/traces in the JSON protocol on
// 127.0.0.1 and keeps every span it was sent.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status?: { code?: number; message?: string };
  service?: string;
  /** Its resource's attributes (service.name, service.version, …). */
  resource?: Record<string, unknown>;
}

type AnyValue = Record<string, unknown>;

// An OTLP AnyValue as a plain value.
function plain(v: AnyValue): unknown {
  if ("stringValue" in v) return v["stringValue"];
  if ("intValue" in v) return Number(v["intValue"]);
  if ("doubleValue" in v) return v["doubleValue"];
  if ("boolValue" in v) return v["boolValue"];
  const arr = v["arrayValue"] as { values?: AnyValue[] } | undefined;
  if (arr) return (arr.values ?? []).map(plain);
  return undefined;
}

const attrs = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Resolves once `count` spans named like `name` arrived (bounded by the test's timeout). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const doc = JSON.parse(body) as {
        resourceSpans: {
          resource?: { attributes?: { key: string; value: AnyValue }[] };
          scopeSpans: { spans: Record<string, unknown>[] }[];
        }[];
      };
      for (const rs of doc.resourceSpans) {
        const resource = attrs(rs.resource?.attributes);
        const service = resource["service.name"];
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              ...(s as unknown as ReceivedSpan),
              attributes: attrs(s["attributes"] as never),
              service: service as string,
              resource,
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    waitFor: async (predicate) => {
      while (!predicate(spans)) await new Promise<void>((r) => waiters.push(r));
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
