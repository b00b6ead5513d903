// Per-user quotas (issue 22): refused with the limit's name and when it frees up, and admitted
// again once it has. Counted through the QuotaCounter port (this process's counts here).
import { describe, expect, it } from "vitest";
import { InProcessQuotaCounter } from "../../src/hub/quota-counter.js";
import { Quotas } from "../../src/hub/quotas.js";
import { toRequestError } from "../../src/protocol/to-request-error.js";

// The error a call rejects with.
async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("no error");
}

const alice = { name: "alice", role: "member" } as const;

describe("quotas", () => {
  it("refuses the prompt past promptsPerMinute until the minute has passed", async () => {
    let t = 1_000_000;
    const q = new Quotas(
      { limits: { promptsPerMinute: 2 } },
      new InProcessQuotaCounter(() => t),
    );
    (await q.admit(alice, 10))();
    t += 10_000;
    (await q.admit(alice, 10))();
    await expect(q.admit(alice, 10)).rejects.toThrow(
      "quota users.limits.promptsPerMinute (2 per minute) reached: frees up in 50 s",
    );
    expect(
      toRequestError(await refusal(() => q.admit(alice, 10))).data,
    ).toEqual({ code: "LIMIT_EXCEEDED", retryable: true, retryAfterS: 50 });
    t += 50_001;
    (await q.admit(alice, 10))();
  });

  it("limits turns at once and prompt bytes; per-user overrides; admins unlimited", async () => {
    const q = new Quotas({
      limits: { concurrentTurns: 1, promptBytes: 100 },
      perUser: { bob: { concurrentTurns: 2 } },
    });
    const done = await q.admit(alice, 10);
    await expect(q.admit(alice, 10)).rejects.toThrow(
      "quota users.limits.concurrentTurns (1 at once) reached: frees up when one of your turns ends",
    );
    done();
    done(); // a release counts once
    await expect(q.admit(alice, 101)).rejects.toThrow(
      "promptBytes (100 bytes; this prompt request is 101 bytes, _meta included)",
    );
    (await q.admit(alice, 100))();
    const bob = { name: "bob", role: "member" } as const;
    await q.admit(bob, 1);
    await q.admit(bob, 1);
    await expect(q.admit(bob, 1)).rejects.toThrow(
      "concurrentTurns (2 at once)",
    );
    const admin = { name: "admin", role: "admin" } as const;
    for (let i = 0; i < 5; i++) await q.admit(admin, 10_000);
  });

  it("limits sessions open at once, counting opens under way; the ledger's own limit wins", async () => {
    const stored: Record<string, { liveSessions?: number }> = {
      bob: { liveSessions: 3 },
    };
    const counter = new InProcessQuotaCounter();
    const q = new Quotas(
      {
        limits: { liveSessions: 1 },
        perUser: { bob: { liveSessions: 2 } },
        stored: (name) => stored[name],
      },
      counter,
    );
    const opening = await q.admitOpen(alice);
    // A second open while the first is under way counts it.
    await expect(q.admitOpen(alice)).rejects.toThrow(
      "quota users.limits.liveSessions (1 open at once) reached: frees up when you close one of your sessions (session/close) or disconnect",
    );
    q.sessionOpen(alice, "s1", true);
    opening();
    await expect(q.admitOpen(alice)).rejects.toThrow("liveSessions");
    // Loading again a session already open is not one more.
    (await q.admitOpen(alice, "s1"))();
    q.sessionOpen(alice, "s1", false);
    await new Promise((resolve) => setImmediate(resolve));
    (await q.admitOpen(alice))();
    expect(q.limitsOf("bob")).toEqual({ liveSessions: 3 });
    const bob = { name: "bob", role: "member" } as const;
    q.sessionOpen(bob, "a", true);
    q.sessionOpen(bob, "b", true);
    (await q.admitOpen(bob))();
    stored["bob"] = {};
    expect(q.limitsOf("bob")).toEqual({ liveSessions: 2 });
    await expect(q.admitOpen(bob)).rejects.toThrow("liveSessions (2 open");
  });
});
