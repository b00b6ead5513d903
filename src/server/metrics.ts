// The hub's Prometheus metrics (`GET /metrics`): connections, live sessions, turns by stop
// reason, updates relayed, permission decisions, agent spawns and crashes, ledger append latency,
// and a cluster node's leases, running turns, heartbeat age and database reachability.
import { Counter, Gauge, Registry } from "prom-client";
import { ledgerWith, type EngineEvents } from "../engine/events.js";
import type { LedgerPort } from "../engine/ports.js";
import type { SessionHubObserver } from "../hub/session-hub.js";
import { CountedHistogram } from "./counted-histogram.js";
import { soon } from "../shared/soon.js";

export interface HubMetrics {
  registry: Registry;
  observer: SessionHubObserver;
  connectionOpened(): void;
  connectionClosed(): void;
  agentSpawned(): void;
  agentCrashed(): void;
  /** The ledger with each append timed into the latency histogram. */
  timeLedger(ledger: LedgerPort): LedgerPort;
  /** The listener counting one agent's reported tokens and cost (Gateway.observe). */
  usage(agent: string): EngineEvents;
  /** How many ACP connections are open now. */
  readonly openConnections: number;
  /** This process as a cluster node: its gauges, read at each scrape. */
  cluster(read: () => ClusterFigures): void;
  /** The agent processes whose own spans acphub's receiver accepts now, read at each scrape. */
  agentTelemetry(tokens: () => number): void;
}

/** A cluster node's state as /metrics shows it (labelled with the node's id). */
export interface ClusterFigures {
  /** The node's id; empty until it joined. */
  node: string;
  /** Sessions whose lease the node holds. */
  leases: number;
  /** Turns running on the node now. */
  running: number;
  heartbeatAgeMs: number;
  /** Whether a heartbeat reached the database within the lease. */
  database: boolean;
}

// One registry per hub (not prom-client's global), so tests can run several hubs.
export function createMetrics(liveSessions: () => number): HubMetrics {
  const registry = new Registry();
  const r = { registers: [registry] };
  let open = 0;
  const connections = new Gauge({
    name: "acphub_connections",
    help: "ACP connections open now",
    ...r,
  });
  new Gauge({
    name: "acphub_sessions_live",
    help: "Sessions with at least one attached connection",
    collect() {
      this.set(liveSessions());
    },
    ...r,
  });
  const turns = new Counter({
    name: "acphub_turns_total",
    help: "Turns ended, by stop reason",
    labelNames: ["stop_reason"],
    ...r,
  });
  // Counted in a number and handed to prom-client at each scrape: its `inc` costs a labels
  // object and a hash on every update relayed.
  let relayed = 0;
  new Counter({
    name: "acphub_updates_relayed_total",
    help: "session/update notifications sent to clients",
    collect() {
      if (relayed > 0) this.inc(relayed);
      relayed = 0;
    },
    ...r,
  });
  const permissions = new Counter({
    name: "acphub_permission_decisions_total",
    help: "Permission requests answered through the hub, by outcome",
    labelNames: ["outcome"],
    ...r,
  });
  const spawns = new Counter({
    name: "acphub_agent_spawns_total",
    help: "Agent processes started",
    ...r,
  });
  const crashes = new Counter({
    name: "acphub_agent_crashes_total",
    help: "Agent processes that died while in use",
    ...r,
  });
  const append = new CountedHistogram(
    "acphub_ledger_append_seconds",
    "Time to append one event to the ledger",
    [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
    r.registers,
  );
  const usage = usageCounters(r);
  return {
    registry,
    usage,
    observer: {
      turnEnded: (reason) => turns.inc({ stop_reason: reason }),
      updateRelayed: (clients) => {
        relayed += clients;
      },
      permissionDecided: (outcome) => permissions.inc({ outcome }),
    },
    connectionOpened: () => connections.set(++open),
    connectionClosed: () => connections.set(--open),
    agentSpawned: () => spawns.inc(),
    agentCrashed: () => crashes.inc(),
    timeLedger: (ledger) => timedLedger(ledger, append),
    get openConnections() {
      return open;
    },
    cluster: (read) => clusterGauges(r, read),
    agentTelemetry: (tokens) =>
      void new Gauge({
        name: "acphub_agent_telemetry_tokens",
        help: "Agent processes whose own spans acphub's receiver accepts now (one token each)",
        collect() {
          this.set(tokens());
        },
        ...r,
      }),
  };
}

// The gauges of a cluster node: leases held, turns running, heartbeat age, database reachable.
function clusterGauges(
  r: { registers: Registry[] },
  read: () => ClusterFigures,
): void {
  const gauge = (
    name: string,
    help: string,
    value: (f: ClusterFigures) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["node"],
      collect() {
        const f = read();
        this.reset();
        if (f.node) this.set({ node: f.node }, value(f));
      },
      ...r,
    });
  gauge(
    "acphub_cluster_leases",
    "Sessions whose lease this node holds",
    (f) => f.leases,
  );
  gauge(
    "acphub_cluster_sessions_running",
    "Turns running on this node now",
    (f) => f.running,
  );
  gauge(
    "acphub_cluster_heartbeat_age_seconds",
    "Time since this node's last heartbeat reached the database",
    (f) => f.heartbeatAgeMs / 1000,
  );
  gauge(
    "acphub_cluster_database_up",
    "1 when a heartbeat reached the database within cluster.leaseMs, else 0",
    (f) => (f.database ? 1 : 0),
  );
}

const TOKEN_TYPES = [
  ["input", "inputTokens"],
  ["output", "outputTokens"],
  ["total", "totalTokens"],
] as const;

// Tokens from each prompt answer and the growth of each session's reported cumulative cost.
function usageCounters(r: { registers: Registry[] }) {
  const tokens = new Counter({
    name: "acphub_tokens_total",
    help: "Tokens agents reported in their prompt answers, by agent and type",
    labelNames: ["agent", "type"],
    ...r,
  });
  const cost = new Counter({
    name: "acphub_cost_total",
    help: "Cost agents reported in usage_update (growth of each session's total), by agent and currency",
    labelNames: ["agent", "currency"],
    ...r,
  });
  const lastCost = new Map<string, number>();
  return (agent: string): EngineEvents => ({
    turnEnded: (e) => {
      for (const [type, key] of TOKEN_TYPES) {
        const n = e.usage?.[key];
        if (typeof n === "number" && n > 0) tokens.inc({ agent, type }, n);
      }
    },
    turnEvent: (sessionId, event) => {
      if (event.type !== "session_update") return;
      const u = event.update as { sessionUpdate: string; cost?: unknown };
      const c = u.cost as { amount?: unknown; currency?: unknown } | undefined;
      if (u.sessionUpdate !== "usage_update" || typeof c?.amount !== "number")
        return;
      const grew = c.amount - (lastCost.get(sessionId) ?? 0);
      lastCost.set(sessionId, c.amount);
      const currency = typeof c.currency === "string" ? c.currency : "";
      if (grew > 0) cost.inc({ agent, currency }, grew);
    },
  });
}

// The ledger with each append timed; everything else passes through. The appends of one
// synchronous run (one agent read's updates: they commit in one batch, or in batches that follow
// each other) are timed together, from the first's call to the last's settling, which the group
// commit settles last: a timer, two clock reads and a settle handler per append were ~5 % of the
// hub's CPU per streamed update. The group's time is one observation counted once per append.
function timedLedger(
  ledger: LedgerPort,
  histogram: CountedHistogram,
): LedgerPort {
  let group:
    { start: number; count: number; last?: Promise<number> } | undefined;
  const afterAppends = ledger.afterAppends?.bind(ledger);
  const timeGroup = () => {
    const timed = group!;
    group = undefined;
    const done = () =>
      histogram.observe((performance.now() - timed.start) / 1000, timed.count);
    if (afterAppends) afterAppends(done);
    else timed.last?.then(done, done);
  };
  const counted = () => {
    if (group) group.count += 1;
    else {
      // (`last` from the start: a group given it later had another shape, and V8 threw the
      // compiled relay's appends away when the first came.)
      group = { start: performance.now(), count: 1, last: undefined };
      soon(timeGroup);
    }
    return group;
  };
  const appendTo = ledger.appendTo?.bind(ledger);
  return ledgerWith(ledger, {
    append: (...args) => {
      const result = ledger.append(...args);
      counted().last = result;
      return result;
    },
    // The relay's appends (no promise each) are timed the same way.
    ...(appendTo && afterAppends
      ? {
          appendTo: (id, kind, text, sink) => {
            counted();
            appendTo(id, kind, text, sink);
          },
          afterAppends,
        }
      : {}),
  });
}
