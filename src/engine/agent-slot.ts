// The one agent process behind a gateway: spawned on first use, and again on next use after it
// dies; concurrent callers share one spawn.
import type { AgentPort } from "./ports.js";

export class AgentSlot {
  private pending: Promise<AgentPort> | undefined;

  constructor(private readonly connect: () => Promise<AgentPort>) {}

  // The live agent, spawning one when there is none or the last one died.
  get(): Promise<AgentPort> {
    if (!this.pending) {
      const promise = this.connect();
      this.pending = promise;
      promise.catch(() => {
        if (this.pending === promise) this.pending = undefined;
      });
    }
    return this.pending.then((agent) => {
      if (agent.alive) return agent;
      this.pending = undefined;
      return this.get();
    });
  }

  // Closes the agent if one was spawned (or is being spawned); never spawns one.
  async close(): Promise<void> {
    const agent = await this.pending?.catch(() => undefined);
    await agent?.close();
  }
}
