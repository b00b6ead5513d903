// Tracing is off unless an endpoint is named, and the standard OTEL_* variables win over config.
import { describe, expect, it } from "vitest";
import { traceSettings } from "../../src/telemetry/settings.js";
import { parentContext } from "../../src/telemetry/turn-tracer.js";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";

describe("traceSettings", () => {
  it("is off without an endpoint, and when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none", () => {
    expect(traceSettings({}, {})).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(traceSettings({}, endpoint)).toBeDefined();
    expect(
      traceSettings({}, { ...endpoint, OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      traceSettings({}, { ...endpoint, OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("takes telemetry.* config, with OTEL_* winning", () => {
    const config = {
      telemetry: {
        endpoint: "http://collector:4318/",
        serviceName: "hub",
        ledgerBatchSpanMs: 0,
      },
    };
    expect(traceSettings(config, {})).toEqual({
      url: "http://collector:4318/v1/traces",
      serviceName: "hub",
      sampler: "parentbased_always_on",
      captureContent: false,
      ledgerBatchSpanMs: 0,
    });
    expect(
      traceSettings(config, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318",
        OTEL_SERVICE_NAME: "svc",
        OTEL_TRACES_SAMPLER: "traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.5",
      }),
    ).toEqual({
      serviceName: "svc",
      sampler: "traceidratio",
      samplerArg: 0.5,
      captureContent: false,
      ledgerBatchSpanMs: 0,
    });
  });
});

describe("parentContext", () => {
  it("continues a valid traceparent and ignores a malformed or all-zero one", () => {
    const ctx = parentContext({
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(trace.getSpanContext(ctx)).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      isRemote: true,
    });
    for (const bad of [
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033-01",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      42,
    ])
      expect(parentContext({ traceparent: bad })).toBe(ROOT_CONTEXT);
  });
});
