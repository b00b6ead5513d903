// The turn gate's line (issue 37): a prompt that may wait gets a place instead of the busy
// refusal; a released claim passes to the first in line at once (no moment the session looks
// idle), first come first served; a place can be left before it is served; the line is bounded;
// another node's turn is still refused. A queued prompt is not one of its user's turns at once.
import { describe, expect, it } from "vitest";
import { TurnGate, type TurnClaim } from "../../src/engine/turn-gate.js";
import { Quotas } from "../../src/hub/quotas.js";

const wait = (id: string, max = 16) => ({ id, max });

describe("the turn gate's line", () => {
  it("passes the claim to the first in line when the turn ends, in order, with no gap", async () => {
    const gate = new TurnGate();
    const first = gate.claimOrWait("s1", undefined, wait("a")) as TurnClaim;
    expect("claimed" in first).toBe(false);
    const b = gate.claimOrWait("s1", undefined, wait("b"));
    const c = gate.claimOrWait("s1", undefined, wait("c"));
    if (!("claimed" in b) || !("claimed" in c)) throw new Error("not queued");
    expect(gate.waiting("s1")).toEqual(["b", "c"]);
    first.release();
    // Held by b at once: nobody else can claim between the release and b's turn.
    expect(gate.tryClaim("s1")).toBeUndefined();
    expect(() => gate.claim("s1")).toThrow(/already has a turn running/);
    const bClaim = await b.claimed;
    expect(bClaim.waited).toBe("b");
    expect(gate.claimOf("s1")).toBe(bClaim);
    expect(gate.waiting("s1")).toEqual(["c"]);
    bClaim.release();
    const cClaim = await c.claimed;
    cClaim.release();
    expect(gate.claimOf("s1")).toBeUndefined();
    expect(gate.tryClaim("s1")).toBeDefined();
  });

  it("a place left before it is served never gets the turn; a served one cannot leave", async () => {
    const gate = new TurnGate();
    const first = gate.claim("s1");
    const b = gate.claimOrWait("s1", undefined, wait("b"));
    const c = gate.claimOrWait("s1", undefined, wait("c"));
    if (!("claimed" in b) || !("claimed" in c)) throw new Error("not queued");
    expect(b.leave(new Error("revoked"))).toBe(true);
    await expect(b.claimed).rejects.toThrow("revoked");
    first.release();
    const cClaim = await c.claimed;
    expect(cClaim.waited).toBe("c");
    expect(c.leave(new Error("too late"))).toBe(false);
  });

  it("is bounded per session, and another node's turn is still refused", () => {
    const gate = new TurnGate();
    gate.claim("s1");
    gate.claimOrWait("s1", undefined, wait("a", 1));
    expect(() => gate.claimOrWait("s1", undefined, wait("b", 1))).toThrow(
      /has 1 prompts queued; the limit is 1 \(serve.maxQueuedPrompts\)/,
    );
    expect(() => gate.claimOrWait("s2", "node-b", wait("c"))).toThrow(
      /running a turn on node node-b/,
    );
    expect(gate.claimOrWait("s3", undefined, wait("d"))).not.toHaveProperty(
      "claimed",
    );
  });

  it("a prompt waiting in line is not counted against concurrentTurns", async () => {
    const quotas = new Quotas({ limits: { concurrentTurns: 1 } });
    const alice = { name: "alice", role: "member" } as const;
    const running = await quotas.admit(alice, 10);
    await expect(quotas.admit(alice, 10)).rejects.toThrow(/concurrentTurns/);
    const queued = await quotas.admit(alice, 10, true);
    queued();
    running();
  });
});
