// The /metrics usage counters: tokens from prompt answers, and only the growth of the
// cumulative cost each usage_update carries (a repeated total is not counted twice); the updates
// relayed, counted between scrapes and never lost or counted twice across them.
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/server/metrics.js";

const usageUpdate = (amount: number) => ({
  type: "session_update" as const,
  sessionId: "agent-1",
  update: {
    sessionUpdate: "usage_update",
    used: 1,
    size: 2,
    cost: { amount, currency: "USD" },
  },
});

describe("usage metrics", () => {
  it("counts answer tokens per agent and type, and cost growth per session", async () => {
    const m = createMetrics(() => 0);
    const l = m.usage("mock");
    l.turnEnded!({
      sessionId: "s1",
      stopReason: "end_turn",
      usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 },
    });
    l.turnEvent!("s1", usageUpdate(0.5));
    l.turnEvent!("s1", usageUpdate(0.5));
    l.turnEvent!("s1", usageUpdate(1.5));
    l.turnEvent!("s2", usageUpdate(0.25));
    const text = await m.registry.metrics();
    expect(text).toContain('acphub_tokens_total{agent="mock",type="input"} 10');
    expect(text).toContain('acphub_tokens_total{agent="mock",type="output"} 4');
    expect(text).toContain('acphub_tokens_total{agent="mock",type="total"} 14');
    expect(text).toContain(
      'acphub_cost_total{agent="mock",currency="USD"} 1.75',
    );
  });

  it("counts the updates relayed to clients, across scrapes", async () => {
    const m = createMetrics(() => 0);
    const relayed = /^acphub_updates_relayed_total (\d+)$/m;
    expect(relayed.exec(await m.registry.metrics())?.[1]).toBe("0");
    m.observer.updateRelayed!(3);
    m.observer.updateRelayed!(2);
    expect(relayed.exec(await m.registry.metrics())?.[1]).toBe("5");
    expect(relayed.exec(await m.registry.metrics())?.[1]).toBe("5");
    m.observer.updateRelayed!(1);
    expect(relayed.exec(await m.registry.metrics())?.[1]).toBe("6");
  });
});
