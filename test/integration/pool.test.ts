// The pool against real mock agent processes: single spawn, reaping, crash respawn, caps.
import { afterEach, describe, expect, it } from "vitest";
import { AgentPool, type PoolKey } from "../../src/agents/pool.js";
import { connectMock, groupGone, steps, waitFor } from "../helpers/mock.js";

let pool: AgentPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

const key = (k = "a"): PoolKey => ({
  agent: "mock",
  cwd: process.cwd(),
  key: k,
});
const makePool = (opts: { idleTtlMs?: number; maxProcesses?: number } = {}) =>
  new AgentPool({ connect: () => connectMock(), ...opts });

describe("AgentPool", () => {
  it("spawns once for 20 concurrent callers of one key", async () => {
    pool = makePool();
    const leases = await Promise.all(
      Array.from({ length: 20 }, () => pool!.acquire(key())),
    );
    expect(pool.spawnCount).toBe(1);
    expect(new Set(leases.map((l) => l.connection.pid)).size).toBe(1);
    const other = await pool.acquire(key("b"));
    expect(other.connection.pid).not.toBe(leases[0]!.connection.pid);
    expect(pool.size).toBe(2);
  });

  it("reaps an idle process after the TTL, leaving no process", async () => {
    pool = makePool({ idleTtlMs: 150 });
    const lease = await pool.acquire(key());
    const pid = lease.connection.pid!;
    lease.release();
    expect(await waitFor(() => groupGone(pid))).toBe(true);
    expect(pool.size).toBe(0);
  });

  it("never reaps a process serving a prompt, and reaps it once the prompt ends", async () => {
    pool = makePool({ idleTtlMs: 100 });
    const lease = await pool.acquire(key());
    const pid = lease.connection.pid!;
    const session = await lease.connection.newSession({ cwd: process.cwd() });
    const run = session.prompt(steps({ sleep: 700 }, { text: "done" }));
    lease.release();
    await new Promise((r) => setTimeout(r, 400));
    expect(groupGone(pid)).toBe(false);
    expect((await run.result).stopReason).toBe("end_turn");
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });

  it("drops a crashed process and respawns it on next use", async () => {
    pool = makePool();
    const first = await pool.acquire(key());
    const session = await first.connection.newSession({ cwd: process.cwd() });
    await expect(
      session.prompt(steps({ exit: 9 })).result,
    ).rejects.toMatchObject({ code: "AGENT_EXITED" });
    first.release();
    const second = await pool.acquire(key());
    expect(second.connection.pid).not.toBe(first.connection.pid);
    expect(second.connection.alive).toBe(true);
    expect(pool.spawnCount).toBe(2);
  });

  it("caps live processes: evicts an idle one, refuses with POOL_FULL when all are busy", async () => {
    pool = makePool({ maxProcesses: 1 });
    const a = await pool.acquire(key("a"));
    await expect(pool.acquire(key("b"))).rejects.toMatchObject({
      code: "POOL_FULL",
    });
    const pidA = a.connection.pid!;
    a.release();
    const b = await pool.acquire(key("b"));
    expect(b.connection.pid).not.toBe(pidA);
    expect(await waitFor(() => groupGone(pidA))).toBe(true);
  });

  it("close() shuts every process down", async () => {
    pool = makePool();
    const leases = await Promise.all([
      pool.acquire(key("a")),
      pool.acquire(key("b")),
    ]);
    await pool.close();
    for (const lease of leases)
      expect(groupGone(lease.connection.pid!)).toBe(true);
    await expect(pool.acquire(key())).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("a failed spawn is not cached: the next acquire tries again", async () => {
    let attempts = 0;
    pool = new AgentPool({
      connect: () =>
        ++attempts === 1
          ? connectMock(["--exit-before-init", "1"])
          : connectMock(),
    });
    await expect(pool.acquire(key())).rejects.toMatchObject({
      code: "AGENT_EXITED",
    });
    const lease = await pool.acquire(key());
    expect(lease.connection.alive).toBe(true);
  });
});
