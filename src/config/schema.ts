// The config file's schema. Strict: an unknown key is an error, so typos never pass silently.
import { z } from "zod";
import { mcpServerSchema } from "../shared/mcp-servers.js";
import { parseAddressRange } from "../shared/address-ranges.js";

const positiveMs = z.number().int().positive();

/** An IP address or CIDR range (serve.trustedProxies). */
const addressRange = z.string().superRefine((text, ctx) => {
  const range = parseAddressRange(text);
  if (typeof range === "string")
    ctx.addIssue({ code: "custom", message: range });
});

/** `true`, or the agent's own state folders and model API domains beyond its preset. */
const agentSandboxSchema = z.union([
  z.boolean(),
  z.strictObject({
    stateDirs: z.array(z.string().min(1)).optional(),
    allowedDomains: z.array(z.string().min(1)).optional(),
  }),
]);

/** An env value: text, with `${secret:NAME}` taking the session owner's secret (issue 36). */
const agentEnvValue = z
  .string()
  .refine(
    (v) =>
      !v
        .replace(/\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}/g, "")
        .includes("${secret:"),
    {
      message:
        "write a secret as ${secret:NAME}, NAME an environment variable's name",
    },
  );

export const agentEntrySchema = z.strictObject({
  /** Absent: the entry only sets options (such as `sandbox`) of a registry agent. */
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), agentEnvValue).optional(),
  /** Names of variables from acphub's environment this agent may see, beyond the base set. */
  passEnv: z.array(z.string().min(1)).optional(),
  description: z.string().optional(),
  /** MCP servers given to this agent on every session/new, load and resume. */
  mcpServers: z.array(mcpServerSchema).optional(),
  /** Run the agent process itself inside the OS sandbox. */
  sandbox: agentSandboxSchema.optional(),
  /** Written by `acphub agents add`: the ACP registry entry this agent came from (issue 40). */
  registry: z
    .strictObject({
      id: z.string().min(1),
      version: z.string().min(1),
      distribution: z.enum(["npx", "uvx", "binary"]),
      /** binary: the archive and the SHA-256 it was checked against. */
      archive: z.string().optional(),
      sha256: z.string().optional(),
      /** binary: installed with --allow-unverified (no sha256 to check it against). */
      unverified: z.literal(true).optional(),
    })
    .optional(),
});

export const permissionModeSchema = z.enum([
  "approve-all",
  "approve-reads",
  "deny-all",
  "ask",
]);

// A regular expression given as a string; invalid ones are rejected when the file is read.
const regex = z.string().refine(
  (source) => {
    try {
      new RegExp(source);
      return true;
    } catch {
      return false;
    }
  },
  { message: "not a valid regular expression" },
);

const permissionRuleSchema = z.strictObject({
  kind: z.union([z.string(), z.array(z.string())]).optional(),
  title: regex.optional(),
  command: regex.optional(),
  action: z.enum(["allow", "deny"]),
});

const denyRuleSchema = z.strictObject({
  name: z.string().min(1),
  pattern: regex,
});

const userLimitsSchema = z.strictObject({
  concurrentTurns: z.number().int().positive().optional(),
  liveSessions: z.number().int().positive().optional(),
  promptsPerMinute: z.number().int().positive().optional(),
  promptBytes: z.number().int().positive().optional(),
  /** Agent processes a user's sessions may run in at once (default 4; issue 36). */
  agentProcesses: z.number().int().positive().optional(),
});

// One budget: tokens and/or cost an agent or a user may use per UTC day or month.
const budgetSchema = z
  .strictObject({
    /** Tokens (the prompt answers' totalTokens) per period. */
    tokens: z.number().int().positive().optional(),
    /** Cost (in the currency the agent reports) per period. */
    cost: z.number().positive().optional(),
    period: z.enum(["day", "month"]).optional(),
  })
  .refine((b) => b.tokens !== undefined || b.cost !== undefined, {
    message: "a budget needs tokens, cost or both",
  });

/** limits.budget: per agent and per user (acphub serve with users); the key "*" is every one
 *  not named. */
const budgetsSchema = z.strictObject({
  agents: z.record(z.string().min(1), budgetSchema).optional(),
  users: z.record(z.string().min(1), budgetSchema).optional(),
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  defaultAgent: z.string().min(1).optional(),
  agents: z.record(z.string().min(1), agentEntrySchema).optional(),
  timeouts: z
    .strictObject({
      initializeMs: positiveMs.optional(),
      requestMs: positiveMs.optional(),
      cancelGraceMs: positiveMs.optional(),
      shutdownMs: positiveMs.optional(),
    })
    .optional(),
  limits: z
    .strictObject({
      maxMessageBytes: z.number().int().positive().optional(),
      stderrTailBytes: z.number().int().positive().optional(),
      maxQueuedEvents: z.number().int().positive().optional(),
      maxPromptBytes: z.number().int().positive().optional(),
      sessionsPerMinute: z.number().int().positive().optional(),
      busyPrompt: z.enum(["reject", "cancel"]).optional(),
      /** Tokens and cost per day or month, per agent and per user (docs/observability.md). */
      budget: budgetsSchema.optional(),
    })
    .optional(),
  telemetry: z
    .strictObject({
      /** The OTLP/HTTP endpoint (traces go to its /v1/traces); OTEL_EXPORTER_OTLP_ENDPOINT wins. */
      endpoint: z.url().optional(),
      /** The service.name of acphub's spans (default "acphub"); OTEL_SERVICE_NAME wins. */
      serviceName: z.string().min(1).optional(),
      /** Prompt and reply text on the spans, masked (default off). */
      captureContent: z.boolean().optional(),
      /** A ledger group commit of a running turn taking at least this long (ms; default 50, 0:
       *  every commit) gets a `ledger batch` span; every commit is counted on the turn's span. */
      ledgerBatchSpanMs: z.number().int().min(0).optional(),
      /** Point the agents acphub spawns at its loopback OTLP receiver (default true). */
      agents: z.boolean().optional(),
    })
    .optional(),
  permissions: z
    .strictObject({
      mode: permissionModeSchema.optional(),
      rules: z.array(permissionRuleSchema).optional(),
    })
    .optional(),
  ledger: z
    .strictObject({
      /** A postgres:// URL: the ledger lives in PostgreSQL instead of $ACPHUB_HOME's SQLite file. */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//i, "must be a postgres:// URL")
        .optional(),
      /** Sessions not updated for this many days are deleted; absent: kept. */
      retentionDays: z.number().positive().optional(),
      /** PostgreSQL: how long a write retries a lost connection before the turn fails (ms). */
      retryMs: z.number().int().positive().optional(),
      maxSessions: z.number().int().positive().optional(),
      maxEventsPerSession: z.number().int().positive().optional(),
      maxBytesPerSession: z.number().int().positive().optional(),
    })
    .optional(),
  fs: z
    .strictObject({
      roots: z.array(z.string().min(1)).optional(),
      maxReadBytes: z.number().int().positive().optional(),
      maxWriteBytes: z.number().int().positive().optional(),
    })
    .optional(),
  terminals: z
    .strictObject({
      /** Replaces the default allowed executables. */
      allow: z.array(z.string().min(1)).optional(),
      /** Added to the allowed executables. */
      extraAllow: z.array(z.string().min(1)).optional(),
      /** Added to the default deny rules. */
      deny: z.array(denyRuleSchema).optional(),
      /** Loader/shell-start variables (names or `X_*` globs) an agent's terminal env and its
       *  scripts may set where no OS sandbox runs (refused by default; see docs/policy.md). */
      allowAgentEnv: z.array(z.string().min(1)).optional(),
      outputByteLimit: z.number().int().nonnegative().optional(),
      timeoutMs: positiveMs.optional(),
      maxPerSession: z.number().int().positive().optional(),
      /** The OS sandbox: `auto` (default), `os` (sandbox or refuse), `off`. */
      sandbox: z.enum(["auto", "os", "off"]).optional(),
      /** Replaces the default credential locations nothing inside may read. */
      denyRead: z.array(z.string().min(1)).optional(),
      /** Let sandboxed commands read the roots' `.env*` files. */
      allowEnvFiles: z.boolean().optional(),
      /** Replaces the default file names denied in the roots (`*.pem`, `*.key`, `id_*`). */
      denyNames: z.array(z.string().min(1)).optional(),
      network: z
        .strictObject({
          allowedDomains: z.array(z.string().min(1)).optional(),
        })
        .optional(),
      /** The bubblewrap program (default: bwrap on PATH); used for agents too. */
      bwrapPath: z.string().min(1).optional(),
    })
    .optional(),
  env: z
    .strictObject({ allow: z.array(z.string().min(1)).optional() })
    .optional(),
  /** Per-user quotas of acphub serve (docs/serve.md, "Quotas"). */
  users: z
    .strictObject({
      limits: userLimitsSchema.optional(),
      perUser: z.record(z.string(), userLimitsSchema).optional(),
      /** The agents a role or user may start (a user's name wins over their role). */
      agents: z
        .record(z.string().min(1), z.array(z.string().min(1)))
        .optional(),
      /** Roles or users that may give a session stdio MCP servers (default ["admin"]). */
      stdioMcpServers: z.array(z.string().min(1)).optional(),
      /** The folders each user (name, role or "*") may open sessions in (docs/serve.md, "Folders"). */
      roots: z
        .record(z.string().min(1), z.array(z.string().min(1)).min(1))
        .optional(),
    })
    .optional(),
  serve: z
    .strictObject({
      /** Cancel a connection's running turns when it disconnects. */
      cancelOnDisconnect: z.boolean().optional(),
      allowOrigins: z.array(z.string().min(1)).optional(),
      /** The URL a reverse proxy serves the hub under (its origin is the hub's own; login URLs use it). */
      publicUrl: z
        .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
        .optional(),
      /** A session nobody used for this long is released (reloaded from the ledger when used). */
      idleSessionMs: positiveMs.optional(),
      /** An agent process none of whose sessions is attached or running is closed after this. */
      idleAgentMs: positiveMs.optional(),
      answerGraceMs: positiveMs.optional(),
      maxConnections: z.number().int().positive().optional(),
      /** Connection bounds per member/viewer, kept for admins, and before authentication (issue 34). */
      maxConnectionsPerUser: z.number().int().positive().optional(),
      adminConnections: z.number().int().nonnegative().optional(),
      maxUnauthenticatedPerAddress: z.number().int().positive().optional(),
      maxUnauthenticated: z.number().int().positive().optional(),
      handshakeTimeoutMs: positiveMs.optional(),
      maxBodyBytes: z.number().int().positive().optional(),
      maxFrameBytes: z.number().int().positive().optional(),
      maxQueuedMessages: z.number().int().positive().optional(),
      /** Prompts queued per session while a turn runs (`_meta.acphub.queue`; default 16). */
      maxQueuedPrompts: z.number().int().positive().optional(),
      maxBufferedBytes: z.number().int().positive().optional(),
      sessionsPerMinute: z.number().int().positive().optional(),
      headersTimeoutMs: positiveMs.optional(),
      idleTimeoutMs: positiveMs.optional(),
      maxFailedAuth: z.number().int().positive().optional(),
      authBackoffMs: positiveMs.optional(),
      /** Reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For/-Proto/-Host or
       *  Forwarded header names the client (docs/serve.md); default none. */
      trustedProxies: z.array(addressRange).optional(),
      /** Requests from these addresses are the user their header names (docs/serve.md). */
      trustedProxy: z
        .strictObject({
          addresses: z.array(z.string().min(1)).min(1),
          userHeader: z.string().min(1).optional(),
          autoCreate: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
  /** Several `acphub serve` on one PostgreSQL ledger (docs/deploy.md). */
  cluster: z
    .strictObject({
      /** How long a dead node's sessions stay held before another node may take them. */
      leaseMs: positiveMs.optional(),
      /** How often a node renews its row and its leases (default leaseMs / 4). */
      heartbeatMs: positiveMs.optional(),
      /** How long SIGTERM waits for running turns before stopping. */
      drainMs: positiveMs.optional(),
    })
    .optional(),
  /** The ACP agent registry `agents registry update` refreshes from (issue 40). */
  registry: z
    .strictObject({
      /** Its registry.json: http(s) or file (default: the public registry). */
      url: z
        .url({
          protocol: /^(https?|file)$/,
          error: "must be an https://, http:// or file:// URL",
        })
        .optional(),
    })
    .optional(),
});

export type Config = z.infer<typeof configSchema>;
export type AgentEntry = z.infer<typeof agentEntrySchema>;
export type PermissionMode = z.infer<typeof permissionModeSchema>;
export type BudgetLimit = z.infer<typeof budgetSchema>;
export type BudgetsConfig = z.infer<typeof budgetsSchema>;
