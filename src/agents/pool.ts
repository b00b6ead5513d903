// Agent processes kept warm, keyed by (agent, cwd, key): one spawn per key at a time, idle
// processes reaped after a TTL (never one serving a prompt), crashed ones dropped and
// respawned on next use, and a cap on live processes.
import { addAbortListener } from "node:events";
import { HubError } from "../shared/errors.js";
import { silentLogger, type Logger } from "../shared/logger.js";
import { once } from "../shared/once.js";
import type { AgentConnection } from "./connection.js";

export interface PoolKey {
  agent: string;
  cwd: string;
  /** Separates processes that must not be shared (one per user, say). */
  key?: string;
}

export interface PoolOptions {
  /** Spawns and initializes an agent for a key. */
  connect: (key: PoolKey) => Promise<AgentConnection>;
  idleTtlMs?: number;
  maxProcesses?: number;
  logger?: Logger;
}

export interface PoolLease {
  connection: AgentConnection;
  /** Hands the process back; it stays warm until idle for the TTL. */
  release(): void;
}

interface Entry {
  id: string;
  ready: Promise<AgentConnection>;
  connection?: AgentConnection;
  leases: number;
  lastUsed: number;
  timer?: NodeJS.Timeout;
}

// The promise's outcome, or the signal's reason once it aborts first (the listener is removed).
function untilAborted<T>(
  promise: Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const listener = addAbortListener(signal, () =>
      reject(signal.reason as Error),
    );
    promise.then(resolve, reject).finally(() => listener[Symbol.dispose]());
  });
}

export const DEFAULT_IDLE_TTL_MS = 5 * 60_000;
export const DEFAULT_MAX_PROCESSES = 8;

export class AgentPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleTtlMs: number;
  private readonly maxProcesses: number;
  private readonly logger: Logger;
  private closing = false;
  /** How many processes the pool has spawned, for tests and stats. */
  spawnCount = 0;

  constructor(private readonly options: PoolOptions) {
    this.idleTtlMs = options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    this.logger = options.logger ?? silentLogger();
  }

  get size(): number {
    return this.entries.size;
  }

  // Returns a warm process for the key, spawning it once however many callers ask at once. A
  // caller's signal ends only its own wait: the spawn is shared (bounded by initialize's timeout).
  async acquire(key: PoolKey, signal?: AbortSignal): Promise<PoolLease> {
    if (this.closing) throw new HubError("CLOSED", "the agent pool is closed");
    const id = JSON.stringify([key.agent, key.cwd, key.key ?? ""]);
    let entry = this.entries.get(id);
    if (entry?.connection && !entry.connection.alive) {
      this.drop(entry);
      entry = undefined;
    }
    entry ??= this.spawn(id, key);
    entry.leases += 1;
    clearTimeout(entry.timer);
    try {
      const connection = await untilAborted(entry.ready, signal);
      return { connection, release: once(() => this.release(entry)) };
    } catch (error) {
      this.release(entry);
      throw error;
    }
  }

  private spawn(id: string, key: PoolKey): Entry {
    if (this.entries.size >= this.maxProcesses && !this.evictIdle()) {
      throw new HubError(
        "POOL_FULL",
        `the pool already runs ${this.entries.size} agent processes (maxProcesses ${this.maxProcesses}), all busy`,
        { retryable: true },
      );
    }
    this.spawnCount += 1;
    const entry: Entry = {
      id,
      leases: 0,
      lastUsed: Date.now(),
      ready: this.options.connect(key),
    };
    this.entries.set(id, entry);
    entry.ready.then(
      (connection) => {
        entry.connection = connection;
        void connection.closed.then(() => {
          if (this.entries.get(id) === entry) this.entries.delete(id);
          clearTimeout(entry.timer);
        });
      },
      () => {
        if (this.entries.get(id) === entry) this.entries.delete(id);
      },
    );
    return entry;
  }

  private release(entry: Entry): void {
    entry.leases -= 1;
    entry.lastUsed = Date.now();
    if (entry.leases === 0) this.armIdleTimer(entry);
  }

  private armIdleTimer(entry: Entry): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (entry.leases > 0) return;
      if (entry.connection?.busy) {
        this.armIdleTimer(entry);
        return;
      }
      this.logger.debug({ key: entry.id }, "reaping idle agent");
      this.drop(entry);
    }, this.idleTtlMs);
    entry.timer.unref();
  }

  private isIdle(entry: Entry): boolean {
    return (
      entry.leases === 0 &&
      entry.connection !== undefined &&
      !entry.connection.busy
    );
  }

  // Makes room by closing the least recently used idle process; false when all are busy.
  private evictIdle(): boolean {
    const idle = [...this.entries.values()].filter((e) => this.isIdle(e));
    idle.sort((a, b) => a.lastUsed - b.lastUsed);
    const victim = idle[0];
    if (!victim) return false;
    this.drop(victim);
    return true;
  }

  private drop(entry: Entry): void {
    clearTimeout(entry.timer);
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
    void entry.connection?.close();
  }

  /** Shuts every process down (stdin end → SIGTERM → SIGKILL, whole process group). */
  async close(): Promise<void> {
    this.closing = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(
      entries.map(async (entry) => {
        clearTimeout(entry.timer);
        const connection = await entry.ready.catch(() => undefined);
        await connection?.close();
      }),
    );
  }
}
