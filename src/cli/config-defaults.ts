// The values acphub uses when the config file does not set them, gathered from the parts that
// own them, so that `config show` can print the effective config with the defaults marked.
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { MOCK_AGENT_NAME } from "../agents/registry.js";
import { DEFAULT_GATEWAY_LIMITS } from "../engine/limits.js";
import { DEFAULT_FS_LIMITS } from "../host/fs-service.js";
import { DEFAULT_TERMINAL_LIMITS } from "../host/terminals.js";
import { DEFAULT_LEDGER_CAPS } from "../ledger/caps.js";

type Tree = Record<string, unknown>;

// The defaults in the config file's own shape (scalars only; lists such as the terminal
// allowlist are documented in docs/policy.md).
export function configDefaults(): Tree {
  return {
    defaultAgent: MOCK_AGENT_NAME,
    timeouts: {
      initializeMs: DEFAULT_LIMITS.initializeTimeoutMs,
      cancelGraceMs: DEFAULT_LIMITS.cancelGraceMs,
      shutdownMs: DEFAULT_LIMITS.shutdownMs,
    },
    limits: {
      maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes,
      stderrTailBytes: DEFAULT_LIMITS.stderrTailBytes,
      maxQueuedEvents: DEFAULT_LIMITS.maxQueuedEvents,
      ...DEFAULT_GATEWAY_LIMITS,
    },
    // retentionDays is off (absent) by default; only the caps have values.
    ledger: {
      maxSessions: DEFAULT_LEDGER_CAPS.maxSessions,
      maxEventsPerSession: DEFAULT_LEDGER_CAPS.maxEventsPerSession,
      maxBytesPerSession: DEFAULT_LEDGER_CAPS.maxBytesPerSession,
    },
    fs: { ...DEFAULT_FS_LIMITS },
    terminals: { ...DEFAULT_TERMINAL_LIMITS },
  };
}

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
    if (isTree(v))
      return `${inner}${JSON.stringify(key)}: ${annotatedJson(v, marks, path, inner)}${comma}`;
    const mark = marks.has(path) ? "  // default" : "";
    return `${inner}${JSON.stringify(key)}: ${JSON.stringify(v)}${comma}${mark}`;
  });
  return entries.length ? `{\n${entries.join("\n")}\n${indent}}` : "{}";
}
