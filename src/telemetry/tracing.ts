// Tracing for a process: nothing when no endpoint is configured (the SDK is never loaded), else
// one SDK whose tracer each gateway's turns use.
import type { Config } from "../config/schema.js";
import type { EngineEvents } from "../engine/events.js";
import type { Logger } from "../shared/logger.js";
import { traceSettings } from "./settings.js";
import { turnTracer } from "./turn-tracer.js";

export interface Tracing {
  /** The listener that traces one gateway's turns (Gateway.observe). */
  listener(agentName: string): EngineEvents;
  /** Sends the spans left and stops the exporter (at exit). */
  shutdown(): Promise<void>;
}

// Starts tracing when the OTEL_* variables or `telemetry.*` ask for it.
export async function openTracing(
  config: Config,
  logger: Logger,
  mask: (text: string) => string,
): Promise<Tracing | undefined> {
  const settings = traceSettings(config);
  if (!settings) return undefined;
  const { loadTraceSdk } = await import("./sdk.js");
  const sdk = await loadTraceSdk(settings);
  logger.info(
    { service: settings.serviceName, sampler: settings.sampler },
    "telemetry: tracing on",
  );
  return {
    listener: (agentName) =>
      turnTracer({
        tracer: sdk.tracer,
        agentName,
        captureContent: settings.captureContent,
        mask,
      }),
    shutdown: () =>
      sdk
        .shutdown()
        .catch((error: unknown) =>
          logger.warn({ err: error }, "telemetry: spans not sent at exit"),
        ),
  };
}
