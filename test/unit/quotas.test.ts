// Per-user quotas (issue 22): refused with the limit's name and when it frees up, and admitted
// again once it has.
import { describe, expect, it } from "vitest";
import { Quotas } from "../../src/hub/quotas.js";
import { toRequestError } from "../../src/protocol/to-request-error.js";

// The error a call throws.
function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("no error");
}

const alice = { name: "alice", role: "member" } as const;

describe("quotas", () => {
  it("refuses the prompt past promptsPerMinute until the minute has passed", () => {
    let t = 1_000_000;
    const q = new Quotas({ limits: { promptsPerMinute: 2 } }, () => t);
    q.admit(alice, 10)();
    t += 10_000;
    q.admit(alice, 10)();
    expect(() => q.admit(alice, 10)).toThrow(
      "quota users.limits.promptsPerMinute (2 per minute) reached: frees up in 50 s",
    );
    expect(toRequestError(refusal(() => q.admit(alice, 10))).data).toEqual({
      code: "LIMIT_EXCEEDED",
      retryable: true,
      retryAfterS: 50,
    });
    t += 50_001;
    expect(() => q.admit(alice, 10)()).not.toThrow();
  });

  it("limits turns at once and prompt bytes; per-user overrides; admins unlimited", () => {
    const q = new Quotas({
      limits: { concurrentTurns: 1, promptBytes: 100 },
      perUser: { bob: { concurrentTurns: 2 } },
    });
    const done = q.admit(alice, 10);
    expect(() => q.admit(alice, 10)).toThrow(
      "quota users.limits.concurrentTurns (1 at once) reached: frees up when one of your turns ends",
    );
    done();
    expect(() => q.admit(alice, 101)).toThrow(
      "promptBytes (100 bytes; this prompt request is 101 bytes, _meta included)",
    );
    q.admit(alice, 100)();
    const bob = { name: "bob", role: "member" } as const;
    q.admit(bob, 1);
    q.admit(bob, 1);
    expect(() => q.admit(bob, 1)).toThrow("concurrentTurns (2 at once)");
    const admin = { name: "admin", role: "admin" } as const;
    for (let i = 0; i < 5; i++) q.admit(admin, 10_000);
  });

  it("limits sessions open at once, counting opens under way; the ledger's own limit wins", () => {
    const stored: Record<string, { liveSessions?: number }> = {
      bob: { liveSessions: 3 },
    };
    const q = new Quotas({
      limits: { liveSessions: 1 },
      perUser: { bob: { liveSessions: 2 } },
      stored: (name) => stored[name],
    });
    const opening = q.admitOpen(alice, new Set());
    // A second open while the first is under way counts it.
    expect(() => q.admitOpen(alice, new Set())).toThrow(
      "quota users.limits.liveSessions (1 open at once) reached: frees up when you close one of your sessions (session/close) or disconnect",
    );
    opening();
    expect(() => q.admitOpen(alice, new Set(["s1"]))).toThrow("liveSessions");
    // Loading again a session already open is not one more.
    q.admitOpen(alice, new Set(["s1"]), "s1")();
    expect(q.limitsOf("bob")).toEqual({ liveSessions: 3 });
    q.admitOpen({ name: "bob", role: "member" }, new Set(["a", "b"]))();
    stored["bob"] = {};
    expect(q.limitsOf("bob")).toEqual({ liveSessions: 2 });
  });
});
