// The budget count of one long-running process, on an injected clock: a spent budget refuses,
// the next UTC day (or month) starts from nothing while the process runs, the notices come once
// per crossing, and a user's budget counts their turns on every agent.
import { describe, expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ports.js";
import { Budgets } from "../../src/telemetry/budgets.js";
import { periodAt } from "../../src/telemetry/budget-usage.js";
import type { BudgetsConfig } from "../../src/config/schema.js";

const EMPTY = {
  listSessions: () => Promise.resolve({ sessions: [], nextCursor: null }),
  events: () => Promise.resolve([]),
} as unknown as LedgerPort;

// Budgets over an empty ledger whose clock the test moves.
function budgets(config: BudgetsConfig, start = Date.UTC(2026, 11, 1, 10)) {
  const clock = { now: start };
  const b = new Budgets(config, EMPTY, () => clock.now);
  // One finished turn of `tokens` on `agent`, sent by `user`; the notices it earned.
  const turn = (
    sessionId: string,
    agent: string,
    tokens: number,
    user?: string,
  ) => {
    const l = b.listener(agent);
    l.turnStarted!({
      sessionId,
      promptSeq: 1,
      prompt: [],
      ...(user ? { author: user } : {}),
    });
    l.turnEnded!({
      sessionId,
      stopReason: "end_turn",
      usage: { totalTokens: tokens },
    });
    return b.noticesAfterTurn(sessionId).map((n) => n.title);
  };
  return { b, clock, turn };
}

describe("Budgets", () => {
  it("refuses once spent and admits again when the day changes, in one process", async () => {
    const { b, clock, turn } = budgets({ agents: { "*": { tokens: 100 } } });
    const payer = { sessionId: "s1", agent: "a" };
    await b.admit(payer);
    expect(turn("s1", "a", 70)).toEqual([]);
    expect(turn("s1", "a", 20)[0]).toMatch(
      /^90 % of the daily budget of agent a/,
    );
    expect(turn("s1", "a", 5)).toEqual([]); // past 80 % already: no second notice
    expect(turn("s1", "a", 10)[0]).toMatch(/is spent \(105 of 100 tokens\)/);
    await expect(b.admit(payer)).rejects.toMatchObject({
      code: "BUDGET_EXCEEDED",
      message: expect.stringContaining(
        "it resets at 2026-12-02 00:00 UTC (in 14 h)",
      ),
    });
    await b.admit({ sessionId: "s2", agent: "other" }); // another agent's own budget
    clock.now = periodAt("day", clock.now).end;
    await b.admit(payer);
  });

  it("a monthly budget lasts the month; a user's budget spans agents", async () => {
    const { b, clock, turn } = budgets({
      users: { alice: { tokens: 50, period: "month" } },
    });
    turn("s1", "a", 30, "alice");
    turn("s2", "b", 30, "alice");
    turn("s3", "a", 500, "bob"); // bob has no budget
    await b.admit({ sessionId: "s3", agent: "a", user: "bob" });
    await b.admit({ sessionId: "s4", agent: "a" }); // no user: no user budget
    await expect(
      b.admit({ sessionId: "s1", agent: "a", user: "alice" }),
    ).rejects.toThrow(
      /monthly budget of user alice \(limits\.budget\.users\.alice\) is spent: 60 of 50 tokens used; it resets at 2027-01-01 00:00 UTC/,
    );
    clock.now = periodAt("day", clock.now).end; // the next day: still this month
    await expect(
      b.admit({ sessionId: "s1", agent: "a", user: "alice" }),
    ).rejects.toThrow();
    clock.now = periodAt("month", clock.now).end;
    await b.admit({ sessionId: "s1", agent: "a", user: "alice" });
  });

  it("counts the growth of a session's reported cost, not its total", async () => {
    const { b, turn } = budgets({ agents: { a: { cost: 1 } } });
    const l = b.listener("a");
    const cost = (amount: number) =>
      l.turnEvent!("s1", {
        type: "session_update",
        sessionId: "s1",
        update: {
          sessionUpdate: "usage_update",
          used: 1,
          size: 2,
          cost: { amount, currency: "USD" },
        },
      } as never);
    await b.admit({ sessionId: "s1", agent: "a" });
    l.turnStarted!({ sessionId: "s1", promptSeq: 1, prompt: [] });
    cost(0.5);
    cost(0.7);
    l.turnEnded!({ sessionId: "s1", stopReason: "end_turn" });
    await b.admit({ sessionId: "s1", agent: "a" });
    l.turnStarted!({ sessionId: "s1", promptSeq: 2, prompt: [] });
    cost(1.0);
    l.turnEnded!({ sessionId: "s1", stopReason: "end_turn" });
    expect(b.noticesAfterTurn("s1").map((n) => n.title)).toEqual([
      expect.stringContaining("is spent (1 of 1 USD cost)"),
    ]);
    expect(turn("s9", "a", 0)).toEqual([]);
  });

  it("asks the ledger again when reading the day's usage failed", async () => {
    let calls = 0;
    const flaky = {
      listSessions: () =>
        ++calls === 1
          ? Promise.reject(new Error("ledger down"))
          : Promise.resolve({ sessions: [], nextCursor: null }),
      events: () => Promise.resolve([]),
    } as unknown as LedgerPort;
    const b = new Budgets({ agents: { a: { tokens: 1 } } }, flaky);
    await expect(b.admit({ sessionId: "s", agent: "a" })).rejects.toThrow(
      "ledger down",
    );
    await b.admit({ sessionId: "s", agent: "a" });
    expect(calls).toBe(2);
  });
});
