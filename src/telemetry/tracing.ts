// Tracing for a process: nothing when no endpoint is configured (the SDK is never loaded), else
// one SDK whose tracer each gateway's turns use, and the ledger's batches that hold a running
// turn's events counted on that turn (slow ones as `ledger batch` spans under it).
import { SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { Config } from "../config/schema.js";
import type { EngineEvents } from "../engine/events.js";
import type { LedgerBatchReport } from "../engine/ports.js";
import type { Logger } from "../shared/logger.js";
import { traceSettings } from "./settings.js";
import { turnTracer, type OpenTurn } from "./turn-tracer.js";
import { linkAgent, type AgentTelemetry } from "./agent-link.js";
import { startAgentReceiver, type AgentReceiver } from "./agent-receiver.js";
import { forwarder } from "./forward.js";
import { once } from "../shared/once.js";

export interface Tracing {
  /** The listener that traces one gateway's turns (Gateway.observe). */
  listener(agentName: string): EngineEvents;
  /** The ledger's batch observer (LedgerOptions.onBatch). */
  ledgerBatch(report: LedgerBatchReport): void;
  /** Sends the spans left and stops the exporter (at exit). */
  shutdown(): Promise<void>;
  /** Exiting now (a second Ctrl-C): the running turns' spans end in error, and what is left is
   *  sent for at most `ms`. */
  exitNow(ms: number): Promise<void>;
  /** Names this process's cluster node on its turns' spans (read as each turn starts). */
  setNode(nodeId: () => string | undefined): void;
  /** Joins an agent process's own spans to these traces (its env and its gateway's listener);
   *  undefined when `telemetry.agents` is false. */
  agentTelemetry?(
    agentName: string,
    env: Record<string, string>,
    mask: (text: string) => string,
  ): AgentTelemetry;
  /** The agent processes whose spans the receiver accepts now (undefined: no receiver). */
  agentTokens?(): number;
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
  const open = new Map<string, OpenTurn>();
  let nodeId: (() => string | undefined) | undefined;
  // The agents' own spans come in through a receiver on loopback (docs/observability.md).
  const receiver: AgentReceiver | undefined =
    config.telemetry?.agents === false
      ? undefined
      : await startAgentReceiver({ forward: forwarder(settings), logger });
  // Sends what is left (the agents' forwards, then acphub's spans), once.
  const shutdown = once(async () => {
    await receiver?.close();
    await sdk
      .shutdown()
      .catch((error: unknown) =>
        logger.warn({ err: error }, "telemetry: spans not sent at exit"),
      );
  });
  return {
    ...(receiver
      ? {
          agentTelemetry: (agentName, env, mask) =>
            linkAgent(receiver, open, agentName, env, mask),
          agentTokens: () => receiver.tokens,
        }
      : {}),
    listener: (agentName) =>
      turnTracer({
        tracer: sdk.tracer,
        agentName,
        captureContent: settings.captureContent,
        mask,
        roots: config.fs?.roots ?? [],
        open,
        nodeId: () => nodeId?.(),
      }),
    ledgerBatch: (report) =>
      batchSpan(sdk.tracer, open, report, settings.ledgerBatchSpanMs),
    setNode: (of) => {
      nodeId = of;
    },
    shutdown,
    exitNow: async (ms) => {
      for (const turn of [...open.values()])
        turn.abandon?.("acphub exited before the turn ended");
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((r) => (timer = setTimeout(r, ms)));
      await Promise.race([shutdown(), late]).finally(() => clearTimeout(timer));
    },
  };
}

// A batch holding events of running turns: counted on each such turn; when it took at least
// `spanMs` or failed, also a span under the first such turn, linked to the others (one span per
// group commit would be ~1 span per 100 relayed updates). A batch of no running turn (a session
// opened, a notice) is not traced.
export function batchSpan(
  tracer: Tracer,
  open: ReadonlyMap<string, OpenTurn>,
  report: LedgerBatchReport,
  spanMs: number,
): void {
  const ms = report.endedAt - report.startedAt;
  const turns: OpenTurn[] = [];
  for (const id of report.sessionIds) {
    const turn = open.get(id);
    if (!turn) continue;
    turn.batches += 1;
    turn.batchMs += ms;
    turn.batchMaxMs = Math.max(turn.batchMaxMs, ms);
    turns.push(turn);
  }
  const [parent, ...others] = turns.map((t) => t.context);
  if (!parent || (ms < spanMs && report.error === undefined)) return;
  const span = tracer.startSpan(
    "ledger batch",
    {
      startTime: report.startedAt,
      attributes: {
        "acphub.ledger.events": report.events,
        "acphub.ledger.bytes": report.bytes,
        "acphub.ledger.sessions": report.sessionIds.length,
      },
      links: others.flatMap((c) => {
        const ctx = trace.getSpanContext(c);
        return ctx ? [{ context: ctx }] : [];
      }),
    },
    parent,
  );
  if (report.error !== undefined)
    span.setStatus({ code: SpanStatusCode.ERROR, message: report.error });
  span.end(report.endedAt);
}
