// The hub's gateways, one per agent process: keyed by the user whose sessions it serves, the
// agent, and the fingerprint of its launch (issue 36), each created and initialized once however
// many ask at once, all sharing the hub's ledger, its engine events and its fan-out editor. A
// user's processes are held within their limit (users.limits.agentProcesses), and a process
// none of whose sessions is in use for `idleMs` is closed.
import type { Gateway } from "../engine/gateway.js";
import type { EngineEvents } from "../engine/events.js";
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import type { TurnGate } from "../engine/turn-gate.js";
import { HubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import { runKey, type ProcessLimits, type ProcessRun } from "./process-run.js";

/** Builds a gateway over one agent process (the hub initializes it and attaches its editor); its
 *  sessions' turns go through `turns`, the hub's one gate (`new SessionTable(turns)`); `run`
 *  says whose process it is and with which launch. */
export type CreateGateway = (
  agentName: string,
  ledger: LedgerPort,
  turns: TurnGate,
  run: ProcessRun,
) => Gateway | Promise<Gateway>;

/** How long an agent process none of whose sessions is in use stays by default: 10 minutes. */
export const DEFAULT_IDLE_AGENT_MS = 10 * 60_000;

export interface GatewayPoolOptions {
  create: CreateGateway;
  ledger: LedgerPort;
  events: EngineEvents;
  editor: EditorPort;
  turns: TurnGate;
  logger: Logger;
  /** Whether a session of the gateway is attached or runs a turn (then it is not idle). */
  inUse: (gateway: Gateway, key: string) => boolean;
  /** A user's processes within their limit; none: unlimited. */
  limits?: ProcessLimits;
  /** Closes a process with nothing in use for this long (default 10 min). */
  idleMs?: number;
  /** Told when a process's gateway is closed (its host goes, its sessions are forgotten). */
  onClosed?: (run: ProcessRun, key: string) => void;
}

/** One process's gateway: being started, or ready; what it holds of its user's limit. */
interface Entry {
  run: ProcessRun;
  key: string;
  gateway: Promise<Gateway>;
  ready?: Gateway;
  /** Its agent answered initialize: only then can it be idle. */
  started?: boolean;
  release?: () => void;
  /** Opens under way on it: never closed as idle meanwhile. */
  busy: number;
  idleSince?: number;
}

export class GatewayPool {
  private readonly entries = new Map<string, Entry>();
  /** The gateways created so far, for the idle sweep of sessions. */
  readonly ready = new Set<Gateway>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: GatewayPoolOptions) {
    const idleMs = o.idleMs ?? DEFAULT_IDLE_AGENT_MS;
    const every = Math.max(10, Math.min(idleMs / 2, 60_000));
    this.timer = setInterval(() => this.sweep(idleMs), every);
    this.timer.unref();
  }

  // The gateway of a process, created and initialized once however many ask at once.
  gatewayFor(run: ProcessRun): Promise<Gateway> {
    const key = runKey(run);
    let entry = this.entries.get(key);
    if (!entry) {
      const made = { run, key, busy: 0 } as Entry;
      made.gateway = this.start(made);
      made.gateway.catch(() => {
        if (this.entries.get(key) === made) this.entries.delete(key);
      });
      this.entries.set(key, (entry = made));
    }
    // Asked for now: its idle clock starts again at the next sweep.
    entry.idleSince = undefined;
    return entry.gateway;
  }

  // The gateway of a process, held in use while `body` runs (a session being opened on it).
  async using<T>(
    run: ProcessRun,
    body: (gateway: Gateway) => Promise<T>,
  ): Promise<T> {
    const gateway = await this.gatewayFor(run);
    const entry = this.entries.get(runKey(run));
    if (entry) entry.busy++;
    try {
      return await body(gateway);
    } finally {
      if (entry) entry.busy--;
    }
  }

  // The process's gateway only when one was already asked for (a release creates none).
  existing(run: ProcessRun): Promise<Gateway> | undefined {
    return this.entries.get(runKey(run))?.gateway;
  }

  /** Whether the session is live in that process now. */
  holds(run: ProcessRun, sessionId: string): boolean {
    const ready = this.entries.get(runKey(run))?.ready;
    return ready?.liveSessionIds().includes(sessionId) ?? false;
  }

  /** The ready gateway that has the session live now, if any. */
  holding(sessionId: string): Gateway | undefined {
    for (const g of this.ready)
      if (g.liveSessionIds().includes(sessionId)) return g;
    return undefined;
  }

  // Closes every process of a user (removed from the hub): their turns end, their sessions stay.
  async closeUser(user: string): Promise<void> {
    const theirs = [...this.entries.values()].filter(
      (e) => e.run.user === user,
    );
    await Promise.allSettled(
      theirs.map((e) => this.closeEntry(e, "user removed")),
    );
  }

  // Starts a process within its user's limit: over it, the user's idle process goes first.
  private async start(entry: Entry): Promise<Gateway> {
    entry.release = await this.admit(entry.run);
    try {
      const created = await this.o.create(
        entry.run.agent,
        this.o.ledger,
        this.o.turns,
        entry.run,
      );
      // One gate decides and cancels every turn of the hub (its busy rule, session/cancel).
      if (created.turns !== this.o.turns)
        throw new HubError(
          "INTERNAL",
          `the gateway of ${entry.run.agent} does not use the hub's turn gate`,
        );
      created.observe(this.o.events);
      created.attachEditor(this.o.editor);
      entry.ready = created;
      this.ready.add(created);
      await created.initialize({ protocolVersion: 1, clientCapabilities: {} });
      entry.started = true;
      return created;
    } catch (error) {
      if (entry.ready) await this.closeEntry(entry, "failed to start");
      else entry.release?.();
      throw error;
    }
  }

  // Holds one of the user's processes, closing an idle one of theirs when they are at the limit.
  private async admit(run: ProcessRun): Promise<(() => void) | undefined> {
    const limits = this.o.limits;
    if (!limits) return undefined;
    const held = await limits.hold(run.user);
    if (held) return held;
    const idle = [...this.entries.values()].find(
      (e) => e.run.user === run.user && this.idle(e),
    );
    if (idle)
      await this.closeEntry(idle, "over the user's agentProcesses limit");
    const again = idle ? await limits.hold(run.user) : undefined;
    if (!again) throw limits.over(run.user);
    return again;
  }

  // Nothing of the process is in use: started (a slow start is not idleness), no open under
  // way, no session attached, no turn.
  private idle(e: Entry): boolean {
    return (
      e.started === true &&
      e.ready !== undefined &&
      e.busy === 0 &&
      !this.o.inUse(e.ready, e.key)
    );
  }

  // One look at every process: its idle clock starts, stops, or has run out.
  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const e of this.entries.values()) {
      if (!this.idle(e)) {
        e.idleSince = undefined;
        continue;
      }
      e.idleSince ??= now;
      if (now - e.idleSince >= idleMs) void this.closeEntry(e, "idle");
    }
  }

  // Closes one process's gateway (its turns end, its agent is shut down) and frees its place.
  private async closeEntry(e: Entry, why: string): Promise<void> {
    if (this.entries.get(e.key) !== e) return;
    this.entries.delete(e.key);
    this.o.logger.info(
      { user: e.run.user, agent: e.run.agent, why },
      "agent process closed",
    );
    // Told first: what ends now is the hub's doing, not a crash.
    this.o.onClosed?.(e.run, e.key);
    const gateway = e.ready ?? (await e.gateway.catch(() => undefined));
    if (gateway) {
      this.ready.delete(gateway);
      await gateway.close().catch(() => undefined);
    }
    e.release?.();
  }

  // Closes every gateway that started (one that failed to start has nothing to close).
  async close(): Promise<void> {
    clearInterval(this.timer);
    const gateways = await Promise.allSettled(
      [...this.entries.values()].map((e) => e.gateway),
    );
    await Promise.allSettled(
      gateways.map((g) =>
        g.status === "fulfilled" ? g.value.close() : Promise.resolve(),
      ),
    );
  }
}
