// Budgets over a real SQLite ledger, on a clock the test moves: a spent budget refuses, the next
// UTC day (or month) starts from nothing, the notices come once per crossing, a user's budget
// counts their turns on every agent — and a budget holds across processes: two Budgets on one
// ledger file (two acphub processes) each refuse once the other spent it.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LedgerPort, StoredUsage } from "../../src/engine/ports.js";
import { CostMeter, recordTurnUsage } from "../../src/engine/turn-usage.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { Budgets } from "../../src/telemetry/budgets.js";
import { periodAt } from "../../src/telemetry/budget-usage.js";
import type { BudgetsConfig } from "../../src/config/schema.js";
import { tempDir } from "../helpers/mock.js";

const opened: SqliteLedger[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

// A ledger file and a way to open it again (another process's view of it).
function ledgerFile() {
  const file = join(tempDir(), "ledger.db");
  return () => {
    const ledger = new SqliteLedger(file);
    opened.push(ledger);
    return ledger;
  };
}

/** One turn to record: whose, how many tokens its answer reports, the session's cost after it. */
interface Turn {
  sessionId: string;
  agent: string;
  tokens: number;
  user?: string;
  cost?: number;
}

// Budgets over `ledger` whose clock the test moves; `turn` is admitted, then recorded in the
// ledger as the engine does (prompt, usage_update, turn_end, its usage row) and told to the
// listener; it returns the notices.
function budgets(config: BudgetsConfig, ledger: LedgerPort) {
  const clock = { shift: 0 };
  const b = new Budgets(config, ledger, () => Date.now() + clock.shift);
  const turn = async (t: Turn) => {
    if (!(await ledger.getSession(t.sessionId)))
      await ledger.createSession({
        id: t.sessionId,
        agent: t.agent,
        cwd: "/",
        title: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
        state: "active",
        agentSessionId: null,
        request: {},
      });
    const l = b.listener(t.agent);
    const payer = { sessionId: t.sessionId, agent: t.agent };
    await b.admit(t.user ? { ...payer, user: t.user } : payer);
    const author = t.user ? { author: t.user } : {};
    const promptSeq = await ledger.append(t.sessionId, "prompt", {
      prompt: [],
      ...author,
    });
    l.turnStarted!({
      sessionId: t.sessionId,
      promptSeq,
      prompt: [],
      ...author,
    });
    const meter = new CostMeter();
    if (t.cost !== undefined) {
      const update = {
        sessionUpdate: "usage_update",
        used: 1,
        size: 2,
        cost: { amount: t.cost, currency: "USD" },
      };
      await ledger.append(t.sessionId, "update", { update });
      meter.heard({
        type: "session_update",
        sessionId: t.sessionId,
        update,
      } as never);
    }
    const usage = { totalTokens: t.tokens };
    await ledger.append(t.sessionId, "turn_end", {
      stopReason: "end_turn",
      usage,
    });
    const recorded = await recordTurnUsage({
      ledger,
      turn: { sessionId: t.sessionId, agent: t.agent, user: t.user, promptSeq },
      meter,
      usage,
      knownCost: undefined,
    });
    l.turnEnded!({
      sessionId: t.sessionId,
      stopReason: "end_turn",
      usage,
      recorded,
    });
    return b.noticesAfterTurn(t.sessionId).map((n) => n.title);
  };
  return { b, clock, turn };
}

// Milliseconds from now to the start of the next UTC day or month.
const toNext = (period: "day" | "month") =>
  periodAt(period, Date.now()).end - Date.now();

describe("Budgets", () => {
  it("refuses once spent and admits again when the day changes", async () => {
    const { b, clock, turn } = budgets(
      { agents: { "*": { tokens: 100 } } },
      ledgerFile()(),
    );
    const payer = { sessionId: "s1", agent: "a" };
    await b.admit(payer);
    const a = { sessionId: "s1", agent: "a" };
    expect(await turn({ ...a, tokens: 70 })).toEqual([]);
    expect((await turn({ ...a, tokens: 20 }))[0]).toMatch(
      /^90 % of the daily budget of agent a/,
    );
    expect(await turn({ ...a, tokens: 5 })).toEqual([]); // past 80 % already
    expect((await turn({ ...a, tokens: 10 }))[0]).toMatch(
      /is spent \(105 of 100 tokens\)/,
    );
    await expect(b.admit(payer)).rejects.toMatchObject({
      code: "BUDGET_EXCEEDED",
      message: expect.stringMatching(
        /is spent: 105 of 100 tokens used; it resets at \d{4}-\d\d-\d\d 00:00 UTC/,
      ),
    });
    await b.admit({ sessionId: "s2", agent: "other" }); // another agent's own budget
    clock.shift = toNext("day");
    await b.admit(payer);
  });

  it("a monthly budget lasts the month; a user's budget spans agents", async () => {
    const { b, clock, turn } = budgets(
      { users: { alice: { tokens: 50, period: "month" } } },
      ledgerFile()(),
    );
    await turn({ sessionId: "s1", agent: "a", tokens: 30, user: "alice" });
    await turn({ sessionId: "s2", agent: "b", tokens: 30, user: "alice" });
    await turn({ sessionId: "s3", agent: "a", tokens: 500, user: "bob" });
    await turn({ sessionId: "s3", agent: "a", tokens: 1, user: "bob" });
    await b.admit({ sessionId: "s3", agent: "a", user: "bob" }); // no budget
    await b.admit({ sessionId: "s4", agent: "a" }); // no user: no user budget
    const alice = { sessionId: "s1", agent: "a", user: "alice" };
    await expect(b.admit(alice)).rejects.toThrow(
      /monthly budget of user alice \(limits\.budget\.users\.alice\) is spent: 60 of 50 tokens used; it resets at \d{4}-\d\d-01 00:00 UTC/,
    );
    clock.shift = toNext("month");
    await b.admit(alice);
  });

  it("counts the growth of a session's reported cost, not its total", async () => {
    const { b, turn } = budgets({ agents: { a: { cost: 1 } } }, ledgerFile()());
    const a = { sessionId: "s1", agent: "a", tokens: 0 };
    await b.admit(a);
    expect(await turn({ ...a, cost: 0.7 })).toEqual([]);
    await b.admit(a);
    expect(await turn({ ...a, cost: 1.0 })).toEqual([
      expect.stringContaining("is spent (1 of 1 USD cost)"),
    ]);
    await expect(b.admit(a)).rejects.toThrow(/1 of 1 USD cost used/);
  });

  it("holds across processes: each refuses once the other spent it, and so does a new one", async () => {
    const open = ledgerFile();
    const config = { agents: { mock: { tokens: 100 } } };
    const first = budgets(config, open());
    const second = budgets(config, open());
    const payer = { sessionId: "s1", agent: "mock" };
    await first.b.admit(payer);
    await second.b.admit({ sessionId: "s2", agent: "mock" }); // read the ledger once already
    await first.turn({ sessionId: "s1", agent: "mock", tokens: 60 });
    await second.b.admit({ sessionId: "s2", agent: "mock" });
    await second.turn({ sessionId: "s2", agent: "mock", tokens: 60 });
    const spent =
      /daily budget of agent mock .* is spent: 120 of 100 tokens used/;
    await expect(first.b.admit(payer)).rejects.toThrow(spent);
    await expect(
      second.b.admit({ sessionId: "s2", agent: "mock" }),
    ).rejects.toThrow(spent);
    const restarted = budgets(config, open());
    await expect(restarted.b.admit(payer)).rejects.toThrow(spent);
  });

  it("counts a row committed after the last look though stamped before it, once", async () => {
    // A turn's row is stamped when it ends and may commit later (or come from a node whose
    // clock is behind): rows within the look-back are read again, and counted once each.
    const at = Date.now() - 1_000;
    const rows: StoredUsage[] = [];
    const row = (id: number, tokens: number): StoredUsage => ({
      id,
      turn: `s:${id}`,
      sessionId: "s",
      agent: "a",
      user: null,
      at,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: tokens,
      tokens,
      cost: 0,
      currency: null,
    });
    const ledger = {
      readUsage: (since: number) =>
        Promise.resolve(rows.filter((r) => r.at >= since)),
    } as unknown as LedgerPort;
    const b = new Budgets({ agents: { a: { tokens: 10 } } }, ledger);
    rows.push(row(1, 6));
    await b.admit({ sessionId: "s", agent: "a" });
    await b.admit({ sessionId: "s", agent: "a" }); // row 1 read again, counted once
    rows.push(row(2, 6));
    await expect(b.admit({ sessionId: "s", agent: "a" })).rejects.toThrow(
      /12 of 10 tokens used/,
    );
  });

  it("asks the ledger again when reading the day's usage failed", async () => {
    let calls = 0;
    const flaky = {
      readUsage: () =>
        ++calls === 1
          ? Promise.reject(new Error("ledger down"))
          : Promise.resolve([]),
    } as unknown as LedgerPort;
    const b = new Budgets({ agents: { a: { tokens: 1 } } }, flaky);
    await expect(b.admit({ sessionId: "s", agent: "a" })).rejects.toThrow(
      "ledger down",
    );
    await b.admit({ sessionId: "s", agent: "a" });
    expect(calls).toBe(2);
  });
});
