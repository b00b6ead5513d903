// The OpenTelemetry SDK, loaded only when tracing is on (a dynamic import: acphub without
// telemetry never loads it): a tracer provider with the OTLP/HTTP exporter and the sampler asked for.
import type { Tracer } from "@opentelemetry/api";
import { HubError } from "../shared/errors.js";
import { ACPHUB_VERSION } from "../shared/version.js";
import type { TraceSettings } from "./settings.js";

export interface TraceSdk {
  tracer: Tracer;
  /** Sends every span ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops. */
  shutdown(): Promise<void>;
}

type SdkModule = typeof import("@opentelemetry/sdk-trace");

// The sampler OTEL_TRACES_SAMPLER names (the spec's values); an unknown one is an error.
function samplerOf(sdk: SdkModule, s: TraceSettings) {
  const ratio = () => new sdk.TraceIdRatioBasedSampler(s.samplerArg ?? 1);
  const root = (name: string) => {
    if (name === "always_on") return new sdk.AlwaysOnSampler();
    if (name === "always_off") return new sdk.AlwaysOffSampler();
    if (name === "traceidratio") return ratio();
    return undefined;
  };
  const plain = root(s.sampler);
  if (plain) return plain;
  const inner = s.sampler.startsWith("parentbased_")
    ? root(s.sampler.slice("parentbased_".length))
    : undefined;
  if (!inner)
    throw new HubError(
      "CONFIG_INVALID",
      `OTEL_TRACES_SAMPLER=${s.sampler} is not one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio`,
    );
  return new sdk.ParentBasedSampler({ root: inner });
}

// Loads the SDK and starts a provider exporting in batches.
export async function loadTraceSdk(s: TraceSettings): Promise<TraceSdk> {
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  const exporter = new OTLPTraceExporter(s.url ? { url: s.url } : {});
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({
      "service.name": s.serviceName,
      "service.version": ACPHUB_VERSION,
    }),
    sampler: samplerOf(sdk, s),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter,
        ...(s.scheduleDelayMs
          ? { scheduledDelayMillis: s.scheduleDelayMs }
          : {}),
      }),
    ],
  });
  return {
    tracer: provider.getTracer("acphub"),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
