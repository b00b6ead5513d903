// The values acphub uses when the config file does not set them, gathered from the parts that
// own them, so that `config show` can print the effective config with the defaults marked:
// every key of the schema (test/integration/cli-first-hour.test.ts walks it to check).
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { MOCK_AGENT_NAME } from "../agents/registry.js";
import { DEFAULT_GATEWAY_LIMITS } from "../engine/limits.js";
import { DEFAULT_FS_LIMITS } from "../host/fs-service.js";
import { DEFAULT_TERMINAL_LIMITS } from "../host/terminals.js";
import {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "../host/command-policy.js";
import { DEFAULT_SANDBOX } from "../host/sandbox/settings.js";
import { DEFAULT_LEDGER_CAPS, DEFAULT_PG_RETRY_MS } from "../ledger/caps.js";
import { DEFAULT_SERVER_LIMITS } from "../server/limits.js";
import { DEFAULT_DRAIN_MS, DEFAULT_LEASE_MS } from "../cluster/index.js";
import { DEFAULT_REGISTRY_URL } from "../registry/snapshot.js";
import { DEFAULT_IDLE_SESSION_MS } from "../hub/idle-sessions.js";
import { DEFAULT_IDLE_AGENT_MS } from "../hub/gateway-pool.js";
import { DEFAULT_AGENT_PROCESSES } from "../hub/quotas.js";
import { ANSWER_GRACE_MS } from "../hub/fan-out.js";
import { DEFAULT_MAX_QUEUED_PROMPTS } from "../hub/prompt-queue.js";

type Tree = Record<string, unknown>;

// Every key of the config file with the value acphub uses when the file does not set it. A
// key with no value of its own (off, or decided elsewhere) is null, its note says what happens.
export function configDefaults(): Tree {
  const {
    requestTimeoutMs: _http,
    keepAliveTimeoutMs: _ka,
    ...serve
  } = DEFAULT_SERVER_LIMITS;
  return {
    $schema: null,
    defaultAgent: MOCK_AGENT_NAME,
    agents: {},
    timeouts: {
      initializeMs: DEFAULT_LIMITS.initializeTimeoutMs,
      requestMs: DEFAULT_LIMITS.requestTimeoutMs,
      cancelGraceMs: DEFAULT_LIMITS.cancelGraceMs,
      shutdownMs: DEFAULT_LIMITS.shutdownMs,
    },
    limits: {
      maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes,
      stderrTailBytes: DEFAULT_LIMITS.stderrTailBytes,
      maxQueuedEvents: DEFAULT_LIMITS.maxQueuedEvents,
      ...DEFAULT_GATEWAY_LIMITS,
      budget: { agents: {}, users: {} },
    },
    permissions: { mode: null, rules: [] },
    ledger: {
      url: null,
      retentionDays: DEFAULT_LEDGER_CAPS.retentionDays,
      retryMs: DEFAULT_PG_RETRY_MS,
      maxSessions: DEFAULT_LEDGER_CAPS.maxSessions,
      maxEventsPerSession: DEFAULT_LEDGER_CAPS.maxEventsPerSession,
      maxBytesPerSession: DEFAULT_LEDGER_CAPS.maxBytesPerSession,
    },
    fs: { roots: null, ...DEFAULT_FS_LIMITS },
    terminals: terminalDefaults(),
    env: { allow: [] },
    serve: {
      cancelOnDisconnect: false,
      allowOrigins: [],
      publicUrl: null,
      idleSessionMs: DEFAULT_IDLE_SESSION_MS,
      idleAgentMs: DEFAULT_IDLE_AGENT_MS,
      answerGraceMs: ANSWER_GRACE_MS,
      maxQueuedPrompts: DEFAULT_MAX_QUEUED_PROMPTS,
      ...serve,
      trustedProxies: [],
      trustedProxy: {
        addresses: [],
        userHeader: "X-Forwarded-User",
        autoCreate: false,
      },
    },
    users: {
      limits: {
        concurrentTurns: null,
        liveSessions: null,
        promptsPerMinute: null,
        promptBytes: null,
        agentProcesses: DEFAULT_AGENT_PROCESSES,
      },
      perUser: {},
      agents: null,
      stdioMcpServers: ["admin"],
      roots: null,
    },
    telemetry: {
      endpoint: null,
      serviceName: "acphub",
      captureContent: false,
      ledgerBatchSpanMs: 50,
      agents: true,
    },
    cluster: {
      leaseMs: DEFAULT_LEASE_MS,
      heartbeatMs: null,
      drainMs: DEFAULT_DRAIN_MS,
    },
    registry: { url: DEFAULT_REGISTRY_URL },
  };
}

// The terminal and sandbox keys: the allowlist, the deny rules added, the sandbox's defaults.
function terminalDefaults(): Tree {
  return {
    allow: [...DEFAULT_ALLOWED_COMMANDS],
    extraAllow: [],
    allowAgentEnv: [],
    deny: [],
    ...DEFAULT_TERMINAL_LIMITS,
    sandbox: DEFAULT_SANDBOX.mode,
    denyRead: [...DEFAULT_SANDBOX.denyRead],
    allowEnvFiles: DEFAULT_SANDBOX.allowEnvFiles,
    denyNames: [...DEFAULT_SANDBOX.denyNames],
    network: { allowedDomains: [...DEFAULT_SANDBOX.allowedDomains] },
    bwrapPath: null,
  };
}

/** What a default means where its value alone does not say it. */
export const DEFAULT_NOTES: Readonly<Record<string, string>> = {
  $schema: "a JSON Schema hint for editors",
  agents: "none beyond the registry (see acphub agents list)",
  "permissions.mode":
    "approve-reads for run, ask for chat at a terminal and acp",
  "ledger.url": "SQLite in the state folder",
  "ledger.retentionDays": "off: sessions are kept",
  "ledger.retryMs": "PostgreSQL only",
  "fs.roots": "the session's working directory",
  "terminals.deny": `added to the ${DEFAULT_DENY_RULES.length} built-in deny rules (docs/policy.md)`,
  "terminals.bwrapPath": "bwrap on PATH",
  "cluster.leaseMs": "PostgreSQL ledger only (acphub serve as a cluster node)",
  "cluster.heartbeatMs": "a quarter of cluster.leaseMs",
  "serve.publicUrl": "the address acphub serve listens on",
  "serve.trustedProxy.addresses": "none: no proxy is trusted",
  "serve.trustedProxies": "none: every client is the address it connects from",
  "users.limits.concurrentTurns": "unlimited",
  "users.limits.liveSessions": "unlimited",
  "users.limits.promptsPerMinute": "unlimited",
  "users.limits.promptBytes": "unlimited",
  "users.agents":
    "admins: every agent serve offers; members: the default agent",
  "users.roots":
    "admins: any folder but the hub's own; others: {stateDir}-workspaces/{user}",
  "limits.budget.agents":
    'none: unlimited (e.g. {"*": {"tokens": 2000000, "period": "day"}})',
  "limits.budget.users": "none: unlimited (acphub serve with users)",
  "telemetry.endpoint": "tracing off unless OTEL_EXPORTER_OTLP_ENDPOINT is set",
};

const isTree = (v: unknown): v is Tree =>
  v !== null && typeof v === "object" && !Array.isArray(v);

// The config with defaults filled in where it is silent, and the dotted paths that came from
// the defaults.
export function withConfigDefaults(
  config: Tree,
  defaults: Tree = configDefaults(),
  prefix = "",
): { merged: Tree; fromDefaults: string[] } {
  const merged: Tree = { ...config };
  const fromDefaults: string[] = [];
  for (const [key, value] of Object.entries(defaults)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const own = config[key];
    if (own === undefined) {
      merged[key] = value;
      fromDefaults.push(path);
    } else if (isTree(own) && isTree(value)) {
      const inner = withConfigDefaults(own, value, path);
      merged[key] = inner.merged;
      fromDefaults.push(...inner.fromDefaults);
    }
  }
  return { merged, fromDefaults };
}

// JSON for people: each value that came from the defaults ends with `// default`.
export function annotatedJson(
  value: Tree,
  fromDefaults: ReadonlySet<string>,
  prefix = "",
  indent = "",
): string {
  const inner = `${indent}  `;
  const entries = Object.entries(value).map(([key, v], i, all) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const comma = i < all.length - 1 ? "," : "";
    // A whole section from the defaults marks each of its values.
    const marks = fromDefaults.has(path)
      ? new Set([
          ...fromDefaults,
          ...Object.keys(isTree(v) ? v : {}).map((k) => `${path}.${k}`),
        ])
      : fromDefaults;
    const note = DEFAULT_NOTES[path];
    const mark = marks.has(path)
      ? `  // default${note ? `: ${note}` : ""}`
      : "";
    if (isTree(v) && Object.keys(v).length)
      return `${inner}${JSON.stringify(key)}: ${annotatedJson(v, marks, path, inner)}${comma}`;
    return `${inner}${JSON.stringify(key)}: ${JSON.stringify(v)}${comma}${mark}`;
  });
  return entries.length ? `{\n${entries.join("\n")}\n${indent}}` : "{}";
}
