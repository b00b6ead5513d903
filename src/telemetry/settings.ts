// Whether acphub traces, and where to: the standard OTEL_* variables first, then `telemetry.*`
// config. Off unless an endpoint is named; OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turn it off.
import type { Config } from "../config/schema.js";

export interface TraceSettings {
  /** Where the exporter posts (a full /v1/traces URL); absent: the exporter reads OTEL_* itself. */
  url?: string;
  serviceName: string;
  sampler: string;
  samplerArg?: number;
  captureContent: boolean;
  /** OTEL_BSP_SCHEDULE_DELAY: how long spans wait to be sent in a batch (ms). */
  scheduleDelayMs?: number;
  /** A ledger group commit taking at least this long (ms) gets a `ledger batch` span. */
  ledgerBatchSpanMs: number;
}

/** telemetry.ledgerBatchSpanMs's default: a commit this slow holds the relay up visibly. */
export const LEDGER_BATCH_SPAN_MS = 50;

type Env = Record<string, string | undefined>;

// The settings when tracing is on, else undefined (nothing is loaded then).
export function traceSettings(
  config: Config,
  env: Env = process.env,
): TraceSettings | undefined {
  const t = config.telemetry ?? {};
  if (env["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true") return;
  if (env["OTEL_TRACES_EXPORTER"]?.trim().toLowerCase() === "none") return;
  const fromEnv =
    env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ||
    env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (!fromEnv && !t.endpoint) return;
  const arg = Number(env["OTEL_TRACES_SAMPLER_ARG"]);
  const delay = Number(env["OTEL_BSP_SCHEDULE_DELAY"]);
  return {
    ...(fromEnv ? {} : { url: `${t.endpoint!.replace(/\/+$/, "")}/v1/traces` }),
    serviceName: env["OTEL_SERVICE_NAME"] || t.serviceName || "acphub",
    sampler: env["OTEL_TRACES_SAMPLER"]?.trim() || "parentbased_always_on",
    ...(Number.isFinite(arg) && env["OTEL_TRACES_SAMPLER_ARG"]
      ? { samplerArg: arg }
      : {}),
    captureContent: t.captureContent ?? false,
    ledgerBatchSpanMs: t.ledgerBatchSpanMs ?? LEDGER_BATCH_SPAN_MS,
    ...(delay > 0 ? { scheduleDelayMs: delay } : {}),
  };
}
