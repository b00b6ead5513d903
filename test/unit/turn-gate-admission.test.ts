// The one turn gate (engine/turn-gate.ts) and the one admission of a prompt (engine/admission.ts):
// one busy rule (here, or on another node: retryable, naming it), one cancel registry, and limits,
// quotas and budgets as three kinds of one check with one refusal shape on the wire.
import { describe, expect, it } from "vitest";
import {
  admit,
  budgetCheck,
  measurePrompt,
  promptSizeLimit,
  refusal,
  type PromptFacts,
} from "../../src/engine/admission.js";
import { TurnGate } from "../../src/engine/turn-gate.js";
import type { SessionRecord } from "../../src/engine/ports.js";
import { Quotas } from "../../src/hub/quotas.js";
import { toRequestError } from "../../src/protocol/to-request-error.js";

// What a refused call rejects with, as an editor receives it.
async function wire(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    const e = toRequestError(error);
    return { message: e.message, data: e.data };
  }
  throw new Error("no refusal");
}

const facts = (params: Record<string, unknown>): PromptFacts => ({
  record: { id: "s1", agent: "mock" } as SessionRecord,
  prompt: measurePrompt(params),
  author: "alice",
});

describe("the turn gate", () => {
  it("holds one turn per session; refuses the next here or on another node; frees on release", () => {
    const gate = new TurnGate();
    const claim = gate.claim("s1");
    expect(gate.tryClaim("s1")).toBeUndefined();
    expect(() => gate.claim("s1")).toThrow(
      expect.objectContaining({
        code: "PROMPT_IN_FLIGHT",
        message: "session s1 already has a turn running",
        retryable: false,
      }),
    );
    gate.claim("s2").release();
    claim.release();
    expect(gate.claimOf("s1")).toBeUndefined();
    // Another node's turn is one more reason it is busy: retryable, naming the node.
    expect(
      toRequestError(captured(() => gate.claim("s1", "node-a"))),
    ).toMatchObject({
      message:
        "session s1 is running a turn on node node-a: wait for it to end, or cancel it",
      data: { code: "PROMPT_IN_FLIGHT", retryable: true, node: "node-a" },
    });
    expect(gate.claimOf("s1")).toBeUndefined();
  });

  it("cancel reaches a prompt on its way, a claimed turn and a session command's run", async () => {
    const gate = new TurnGate();
    const arriving = gate.cancelScope("s1", new AbortController().signal);
    const other = gate.cancelScope("s2", new AbortController().signal);
    const claim = gate.claim("s1");
    let turnCancelled = false;
    claim.turn = { cancel: () => (turnCancelled = true) } as never;
    gate.cancel("s1");
    expect(arriving.signal.aborted).toBe(true);
    expect(claim.cancelled && claim.signal.aborted && turnCancelled).toBe(true);
    expect(other.signal.aborted).toBe(false);
    arriving.release();
    // busyPrompt "cancel": the next claim cancels the holder and waits for its end.
    const next = gate.claimCancelling("s1");
    claim.release();
    (await next).release();
  });
});

describe("the admission of a prompt", () => {
  it("measures the whole request once and refuses it over the size limit", async () => {
    const params = {
      sessionId: "s1",
      prompt: [{ type: "text", text: "hi" }],
      _meta: { x: "y".repeat(200) },
    };
    const f = facts(params);
    expect(f.prompt.bytes).toBe(Buffer.byteLength(JSON.stringify(params)));
    expect(await wire(() => admit([promptSizeLimit(100)], f))).toEqual({
      message: `prompt request is ${f.prompt.bytes} bytes (its blocks, _meta and every other field); the limit is 100 (limits.maxPromptBytes)`,
      data: { code: "LIMIT_EXCEEDED", retryable: false },
    });
    expect(() => measurePrompt({ prompt: "hi" })).toThrow(
      "prompt must be an array of content blocks",
    );
  });

  it("limits, quotas and budgets refuse in one shape, in order, giving back what earlier checks held", async () => {
    const quotas = new Quotas({
      limits: { concurrentTurns: 1, promptBytes: 40 },
    });
    const alice = { name: "alice", role: "member" } as const;
    const small = facts({ sessionId: "s1", prompt: [] });
    const spent = refusal(
      "budget",
      "the daily budget of user alice (limits.budget.users.alice) is spent: 5 of 1 tokens used; it resets at tomorrow",
      { retryable: true, retryAfterS: 60 },
    );
    const budget = budgetCheck({
      admit: () => Promise.reject(spent),
      noticesAfterTurn: () => [],
    });
    const checks = [promptSizeLimit(1000), quotas.check(alice), budget];
    // The budget refuses: the quota's turn taken before it is given back.
    expect(await wire(() => admit(checks, small))).toEqual({
      message: spent.message,
      data: { code: "BUDGET_EXCEEDED", retryable: true, retryAfterS: 60 },
    });
    const release = await admit(checks.slice(0, 2), small);
    expect(await wire(() => admit(checks, small))).toEqual({
      message:
        "quota users.limits.concurrentTurns (1 at once) reached: frees up when one of your turns ends",
      data: { code: "LIMIT_EXCEEDED", retryable: true },
    });
    release();
    const big = facts({
      sessionId: "s1",
      prompt: [{ type: "text", text: "a prompt longer than forty bytes" }],
    });
    expect(await wire(() => admit(checks, big))).toMatchObject({
      message: expect.stringMatching(
        /^quota users\.limits\.promptBytes \(40 bytes; this prompt request is \d+ bytes, _meta included\) reached: send a smaller prompt$/,
      ),
      data: { code: "LIMIT_EXCEEDED", retryable: true },
    });
    // A session command's own step agents are admitted by their gateways, not counted here.
    await admit([budget], { ...small, command: { name: "flow", input: "" } });
  });
});

// The error a synchronous call throws.
function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("no error");
}
