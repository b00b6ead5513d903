// Which agent process runs each session (issue 36): decided when the session is opened (new,
// load, resume, fork) — the process it is live in, else its owner's agent as launched now — and
// remembered, so that its prompts, cancels and settings need no ledger read. A session shared
// with a driver still runs in its owner's process; requests about no session go to the admin's.
import { BUILTIN_ADMIN } from "../contracts/users.js";
import type { Gateway } from "../engine/gateway.js";
import type { SessionRecord } from "../engine/ports.js";
import type { SessionAccess } from "./access.js";
import type { GatewayPool } from "./gateway-pool.js";
import { withOwnMeta } from "../shared/hub-extension.js";
import type { Params } from "../protocol/raw.js";
import {
  runKey,
  sharedRun,
  type ProcessPolicy,
  type ProcessRun,
} from "./process-run.js";

export class SessionProcesses {
  /** The run each session opened here is served by. */
  private readonly runs = new Map<string, ProcessRun>();
  /** The admin's run of each agent, for requests about no session (initialize, agent-wide). */
  private readonly defaults = new Map<string, ProcessRun>();

  constructor(
    private readonly pool: GatewayPool,
    private readonly access: SessionAccess,
    /** Whether a session is in use: attached by a client, or running a turn. */
    private readonly busy: (sessionId: string) => boolean,
    private readonly policy?: ProcessPolicy,
  ) {}

  // The run a new session (or a fork) of `user` gets: their agent as launched now. A missing
  // secret refuses here, before anything starts or is recorded.
  planFor(user: string | undefined, agent: string): Promise<ProcessRun> {
    if (!this.policy) return Promise.resolve(sharedRun(agent));
    return this.policy.plan(user ?? BUILTIN_ADMIN, agent);
  }

  // The run a stored session opens in: the process it is live in, else its owner's as now.
  async openRun(record: SessionRecord): Promise<ProcessRun> {
    const known = this.runs.get(record.id);
    if (known && this.pool.holds(known, record.id)) return known;
    if (!this.policy) return sharedRun(record.agent);
    const owner = await this.access.ownerOf(record.id);
    return this.policy.plan(owner, record.agent);
  }

  /** Remembers the run a session was opened in. */
  remember(sessionId: string, run: ProcessRun): void {
    this.runs.set(sessionId, run);
  }

  forget(sessionId: string): void {
    this.runs.delete(sessionId);
  }

  // The gateway of a session's requests: the run remembered at its open, else planned now.
  async gatewayOf(record: SessionRecord): Promise<Gateway> {
    let run = this.runs.get(record.id);
    if (!run) {
      run = await this.openRun(record);
      this.remember(record.id, run);
    }
    return this.pool.gatewayFor(run);
  }

  // The gateway that ends a session (close, delete): the one it is live in, else any that runs
  // (ending a session no agent holds is the ledger's), else its own.
  async enderOf(record: SessionRecord): Promise<Gateway> {
    const live = this.pool.holding(record.id);
    if (live) return live;
    for (const gateway of this.pool.ready) return gateway;
    return this.gatewayOf(record);
  }

  // The admin's process of an agent (the only one, without a policy): requests about no session.
  async defaultGateway(agent: string): Promise<Gateway> {
    let run = this.defaults.get(agent);
    if (!run) {
      run = this.policy
        ? await this.policy.plan(BUILTIN_ADMIN, agent, true)
        : sharedRun(agent);
      this.defaults.set(agent, run);
    }
    return this.pool.gatewayFor(run);
  }

  /** The pool's key of the process a session was opened in, if it still runs. */
  keyOf(sessionId: string): string | undefined {
    const run = this.runs.get(sessionId);
    return run && this.pool.existing(run) ? runKey(run) : undefined;
  }

  // Whether anything of a process is in use: a session live in it or opened in it is attached
  // or runs a turn (a turn's session is live in its gateway).
  inUse(gateway: Gateway, key: string): boolean {
    if (gateway.liveSessionIds().some(this.busy)) return true;
    for (const [id, run] of this.runs)
      if (runKey(run) === key && this.busy(id)) return true;
    return false;
  }

  // Runs `body` on a process's gateway, held in use meanwhile (a session being opened on it).
  using<T>(
    run: ProcessRun,
    body: (gateway: Gateway) => Promise<T>,
  ): Promise<T> {
    return this.pool.using(run, body);
  }

  /** An open's answer saying whose agent runs the session (`_meta.acphub.runsAs`), when the hub
   *  names it (a hub that keeps users). */
  withRunsAs(sessionId: string, result: Params): Params {
    const runsAs = this.policy?.namesOwner?.()
      ? this.runs.get(sessionId)?.user
      : undefined;
    if (!runsAs) return result;
    return { ...result, _meta: withOwnMeta(result["_meta"], { runsAs }) };
  }

  // A process closed: its sessions are planned again at their next use.
  closed(key: string): void {
    for (const [id, run] of this.runs)
      if (runKey(run) === key) this.runs.delete(id);
    for (const [agent, run] of this.defaults)
      if (runKey(run) === key) this.defaults.delete(agent);
  }
}
