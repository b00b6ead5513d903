// An agent process that starts slowly is not idle, and a closed one is not spawned again: under
// load, with serve.idleAgentMs short, the pool's sweep closed a gateway whose agent was still
// answering initialize, and the initialize under way then spawned a second process that nobody
// closed (an orphan holding a telemetry token: serve-agent-tokens failed in a busy full run).
import { describe, expect, it } from "vitest";
import type { Gateway } from "../../src/engine/gateway.js";
import { AgentSlot } from "../../src/engine/parts.js";
import type { AgentPort } from "../../src/engine/ports.js";
import type { TurnGate } from "../../src/engine/turn-gate.js";
import { GatewayPool } from "../../src/hub/gateway-pool.js";
import { sharedRun } from "../../src/hub/process-run.js";
import { silentLogger } from "../../src/shared/logger.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fakeAgent(): AgentPort & { closes: number } {
  const agent = {
    alive: true,
    closes: 0,
    close: async () => {
      agent.alive = false;
      agent.closes += 1;
    },
  };
  return agent as unknown as AgentPort & { closes: number };
}

describe("AgentSlot", () => {
  it("closed while its agent spawns: that agent is closed and no other is spawned", async () => {
    const agents: (AgentPort & { closes: number })[] = [];
    let spawned!: (a: AgentPort) => void;
    const slot = new AgentSlot(() => {
      const a = fakeAgent();
      agents.push(a);
      if (agents.length > 1) return Promise.resolve(a);
      return new Promise((resolve) => (spawned = () => resolve(a)));
    });
    const waiting = slot.get(); // an initialize under way
    const closing = slot.close();
    spawned(agents[0]!);
    await closing;
    // The request that waited got the agent the close then ended (its request fails there)…
    expect((await waiting).alive).toBe(false);
    // …and asking again, as a failed request's retry does, spawns nothing.
    await expect(slot.get()).rejects.toThrow("the agent's process was closed");
    expect(agents.length).toBe(1);
    expect(agents[0]!.closes).toBe(1);
  });
});

describe("GatewayPool", () => {
  it("does not close as idle a process still answering initialize", async () => {
    const turns = {} as TurnGate;
    let closed = 0;
    const gateway = {
      turns,
      observe: () => undefined,
      attachEditor: () => undefined,
      initialize: () => sleep(300), // six idle periods of the pool below
      liveSessionIds: () => [],
      close: async () => void (closed += 1),
    } as unknown as Gateway;
    const pool = new GatewayPool({
      create: () => gateway,
      ledger: {} as never,
      events: {} as never,
      editor: {} as never,
      turns,
      logger: silentLogger(),
      inUse: () => false,
      idleMs: 50,
    });
    try {
      expect(await pool.gatewayFor(sharedRun("mock"))).toBe(gateway);
      expect(closed).toBe(0);
      // Started and unused: closed once idle for idleMs.
      await expect.poll(() => closed, { timeout: 2000 }).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
