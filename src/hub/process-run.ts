// Which agent process serves a session (issue 36): its owner's, of its agent, launched as the
// owner's agent is launched now (their environment and secrets). The hub keys its gateways by
// it; how a run is planned (the launch, its environment, whose limits) is the composition
// root's (app/agent-runs.ts), given to the hub as a policy.
import type { HubError } from "../shared/errors.js";

/** One agent process's identity: whose, which agent, which launch. */
export interface ProcessRun {
  /** The hub user whose sessions it serves ("" on a hub that keeps one process per agent). */
  user: string;
  agent: string;
  /** A fingerprint of the resolved launch (command, arguments, environment): never shown. */
  launch: string;
}

/** A user's agent processes within their limit (users.limits.agentProcesses). */
export interface ProcessLimits {
  /** Holds one more process of the user: its release, or undefined at their limit. */
  hold(user: string): Promise<(() => void) | undefined>;
  /** The refusal when the user is at their limit and none of their processes is idle. */
  over(user: string): HubError;
}

/** How the hub's agent processes are planned and bounded (acphub serve); none: one per agent. */
export interface ProcessPolicy {
  /** The run of a user's agent as it would be launched now; throws (a HubError) naming what
   *  is missing, e.g. a secret. `lenient`: for agent-wide requests, never throws for secrets. */
  plan(user: string, agent: string, lenient?: boolean): Promise<ProcessRun>;
  limits?: ProcessLimits;
  /** Closes a process none of whose sessions is in use for this long. */
  idleMs?: number;
  /** Whether session answers say whose agent runs them (a hub that keeps users). */
  namesOwner?: () => boolean;
}

// The pool's key of a run: the agent's name alone on a hub with one process per agent.
export function runKey(run: ProcessRun): string {
  if (run.user === "" && run.launch === "") return run.agent;
  return JSON.stringify([run.user, run.agent, run.launch]);
}

/** The run of a hub without a policy: one process per agent, whoever asks. */
export function sharedRun(agent: string): ProcessRun {
  return { user: "", agent, launch: "" };
}
