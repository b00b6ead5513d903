// The ledger contract, continued (issue 34): turns' usage lives in a table of its own. Deleting,
// trimming, expiring or forking sessions takes nothing from it and adds nothing to it, a turn is
// recorded once however often it is recorded, and a ledger written before the table existed is
// filled from its sessions' events on upgrade (a fork's copied turns not counted again).
import { expect, it } from "vitest";
import type { LedgerPort, UsageEntry } from "../../src/engine/ledger-port.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

const entry = (turn: string, tokens: number, at = Date.now()): UsageEntry => ({
  turn,
  sessionId: turn.split(":")[0]!,
  agent: "a",
  user: "alice",
  at,
  inputTokens: tokens,
  outputTokens: 0,
  totalTokens: tokens,
  tokens,
  cost: 0.25,
  currency: "USD",
});

// The turns recorded, by turn, with their tokens.
async function recorded(ledger: LedgerPort, since = 0) {
  return (await ledger.readUsage(since)).map((u) => [u.turn, u.tokens]);
}

// A session with one turn: its prompt (by alice), a cost report, its end with 7 tokens.
async function oneTurn(ledger: LedgerPort, id: string): Promise<void> {
  await ledger.append(id, "prompt", { prompt: [], author: "alice" });
  await ledger.append(id, "update", {
    update: {
      sessionUpdate: "usage_update",
      cost: { amount: 0.5, currency: "USD" },
    },
  });
  await ledger.append(id, "turn_end", {
    stopReason: "end_turn",
    usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
  });
}

/** How a test takes a ledger back to the schema before the usage table (behind its back). */
export type Downgrade = (where: string) => Promise<void>;

export function usageContract(
  factory: LedgerFactory,
  downgrade: Downgrade,
): void {
  it("keeps turns' usage when their sessions are deleted, trimmed, expired or forked; once per turn", async () => {
    const { ledger, where } = await factory.create({ maxEventsPerSession: 2 });
    await ledger.createSession(session("s1"));
    await ledger.recordUsage(entry("s1:1", 10));
    await ledger.recordUsage(entry("s1:1", 99)); // the same turn again: no change
    await ledger.copySession("s1", { ...session("f1"), forkedFrom: "s1" });
    for (let i = 0; i < 4; i++) await ledger.append("s1", "update", { i });
    expect(await ledger.deleteSession("s1")).toBe(true);
    expect(await ledger.deleteSession("f1")).toBe(true);
    expect(await recorded(ledger)).toEqual([["s1:1", 10]]);
    await ledger.recordUsage(entry("s2:4", 3, Date.now() - 5 * 86_400_000));
    await ledger.close();
    const again = await factory.reopen(where, { retentionDays: 1 });
    const rows = await again.readUsage(0);
    expect(rows.map((u) => [u.turn, u.tokens])).toEqual([
      ["s1:1", 10],
      ["s2:4", 3],
    ]);
    expect(rows[0]).toMatchObject({
      sessionId: "s1",
      agent: "a",
      user: "alice",
      totalTokens: 10,
      cost: 0.25,
      currency: "USD",
    });
    expect(rows[1]!.id).toBeGreaterThan(rows[0]!.id);
    expect(await recorded(again, Date.now() - 86_400_000)).toEqual([
      ["s1:1", 10],
    ]);
    await again.close();
  });

  it("fills the usage table from the sessions' turns when a ledger from before it is opened", async () => {
    const { ledger, where } = await factory.create();
    const old = Date.now() - 60_000;
    await ledger.createSession(session("s1", old));
    await oneTurn(ledger, "s1");
    // A fork: its copies of s1's events are older than the fork itself.
    await ledger.copySession("s1", {
      ...session("f1", Date.now() + 1000),
      forkedFrom: "s1",
    });
    await ledger.close();
    await downgrade(where);
    const upgraded = await factory.reopen(where);
    const rows = await upgraded.readUsage(0);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      sessionId: "s1",
      user: "alice",
      inputTokens: 5,
      outputTokens: 2,
      totalTokens: 7,
      tokens: 7,
      cost: 0.5,
      currency: "USD",
    });
    await upgraded.close();
  });
}
