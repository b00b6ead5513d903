// How each hub user's agent process is launched (issue 36). A member's gets HOME in the hub's
// state folder ({stateDir}/homes/{user}, mode 0700) and an environment of the env filter's base
// allowlist, the agent entry's literal `env` and what the secrets port adds — never the
// operator's own variables (no passEnv, no env.allow, nothing of ACPHUB_*, tokens, cloud keys).
// An admin's is launched as before (the operator's environment) plus the secrets port's
// additions. The launch's fingerprint keys the hub's process pool: a changed launch (a new
// secret, a config change) starts a new process for the sessions opened after it.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { resolveAgent, type AgentLaunch } from "../agents/registry.js";
import type { Config } from "../config/schema.js";
import type { AgentEnvSource } from "../contracts/agent-env.js";
import type { HubUser } from "../contracts/users.js";
import {
  runKey,
  type ProcessPolicy,
  type ProcessRun,
} from "../hub/process-run.js";
import type { Quotas } from "../hub/quotas.js";
import { filterEnv } from "../shared/env-filter.js";
import { HubError } from "../shared/errors.js";
import { secretRefs } from "../shared/secrets.js";
import { USER_NAME_PATTERN } from "../shared/user-names.js";

export interface AgentRunsOptions {
  config: Config;
  stateDir: string;
  /** The secrets port (u-secrets); none: the config entry's env as written, nothing added. */
  agentEnv?: AgentEnvSource;
  /** A hub user by name; undefined once they were removed. */
  userOf: (name: string) => HubUser | undefined;
  quotas: Quotas;
  /** Whether the hub keeps users (then session answers say whose agent runs them). */
  hasUsers: () => boolean;
  idleMs?: number;
}

/** The planned launches of the hub's processes, and the policy the hub plans them with. */
export interface AgentRuns {
  policy: ProcessPolicy;
  /** The launch a run was planned with (by the pool's key). */
  launchOf(run: ProcessRun): PlannedLaunch | undefined;
}

export interface PlannedLaunch {
  launch: AgentLaunch;
  /** A member's run: its terminals start from its own environment, not the operator's. */
  member: boolean;
}

/** Variables of the base allowlist that would point a member's agent at the operator's files. */
const OPERATOR_DIRS = [
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME",
];

// The hub's process policy over this process's config and users.
export function agentRuns(o: AgentRunsOptions): AgentRuns {
  const planned = new Map<string, PlannedLaunch>();
  const plan = async (user: string, agent: string, lenient = false) => {
    const who = o.userOf(user);
    if (!who)
      throw new HubError(
        "PERMISSION_DENIED",
        `${user} is no longer a user of this hub: their agents do not run (their sessions stay in the ledger: acphub sessions show, export)`,
      );
    const launch = await launchFor(o, who, agent, lenient);
    const run = { user, agent, launch: fingerprint(launch) };
    planned.set(runKey(run), { launch, member: who.role !== "admin" });
    return run;
  };
  return {
    policy: {
      plan,
      limits: {
        hold: (user) => {
          const who = o.userOf(user);
          return who ? o.quotas.holdProcess(who) : Promise.resolve(undefined);
        },
        over: (user) => o.quotas.processesOver(user),
      },
      ...(o.idleMs !== undefined ? { idleMs: o.idleMs } : {}),
      namesOwner: o.hasUsers,
    },
    launchOf: (run) => planned.get(runKey(run)),
  };
}

// A user's launch of an agent: an admin's as the operator's, a member's in their own environment.
async function launchFor(
  o: AgentRunsOptions,
  who: HubUser,
  agent: string,
  lenient: boolean,
): Promise<AgentLaunch> {
  const resolved = resolveAgent(agent, o.config);
  const configEnv = { ...o.config.agents?.[agent]?.env };
  const added = await secretsOf(o, who.name, agent, configEnv, lenient);
  if (who.role === "admin")
    return {
      ...resolved,
      env: withoutSecretRefs({ ...resolved.env, ...added }),
    };
  const base = filterEnv(process.env);
  for (const name of OPERATOR_DIRS) delete base[name];
  const HOME = homeOf(o.stateDir, who.name);
  const env = { ...base, ...configEnv, ...added, HOME };
  return { ...resolved, env: withoutSecretRefs(env) };
}

// A `${secret:NAME}` still unresolved (a request about no session, whose user lacks it: only the
// agent's capabilities are asked) is left out rather than passed on as text.
function withoutSecretRefs(
  env: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([, value]) => secretRefs({ value }).length === 0,
    ),
  );
}

// What the secrets port adds; for a request about no session (`lenient`), nothing when it refuses.
async function secretsOf(
  o: AgentRunsOptions,
  user: string,
  agent: string,
  configEnv: Record<string, string>,
  lenient: boolean,
): Promise<Record<string, string>> {
  if (!o.agentEnv) return {};
  try {
    return await o.agentEnv(user, agent, { ...configEnv });
  } catch (error) {
    if (lenient) return {};
    throw error;
  }
}

/** A member's agent HOME: `{stateDir}/homes/{user}`, made (mode 0700) when missing. */
export function homeOf(stateDir: string, user: string): string {
  if (!USER_NAME_PATTERN.test(user))
    throw new HubError("INTERNAL", `not a user name: ${JSON.stringify(user)}`);
  const homes = join(stateDir, "homes");
  const home = join(homes, user);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(homes, 0o700);
  chmodSync(home, 0o700);
  return home;
}

// The launch's fingerprint: command, arguments and environment (values never leave this hash).
function fingerprint(launch: AgentLaunch): string {
  const env = Object.entries(launch.env).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash("sha256")
    .update(JSON.stringify([launch.command, launch.args, env]))
    .digest("hex");
}
