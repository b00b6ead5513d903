import { describe, expect, it } from "vitest";
import { resolveLimits } from "../../src/agents/limits.js";
import { LineSplitter } from "../../src/protocol/ndjson.js";
import {
  isAllowed,
  outcomeFor,
} from "../../src/protocol/permission-options.js";
import {
  checkAgentProtocolVersion,
  normalizeProtocolVersion,
} from "../../src/protocol/version.js";
import { AsyncQueue } from "../../src/shared/async-queue.js";
import { TailBuffer } from "../../src/shared/tail-buffer.js";
import { PermissionEngine } from "../../src/host/permission-engine.js";
import {
  scenarioFromPrompt,
  validateScenario,
} from "../../src/mock-agent/scenario.js";

// Each line `s` tells, for the chunks pushed in turn.
function lines(s: LineSplitter, ...chunks: Buffer[]): string[] {
  const out: string[] = [];
  for (const chunk of chunks) s.push(chunk, (line) => out.push(line));
  return out;
}

describe("LineSplitter", () => {
  it("splits lines across chunks", () => {
    const s = new LineSplitter(100);
    expect(lines(s, Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(lines(s, Buffer.from(":2}\n\n"))).toEqual(['{"b":2}', ""]);
    expect(s.flush()).toBeUndefined();
    expect(lines(s, Buffer.from("tail"))).toEqual([]);
    expect(s.flush()).toBe("tail");
  });
  it("decodes a character cut between chunks, and lines of several chunks", () => {
    const bytes = Buffer.from("é1\nü2 漢字\n😀 end\nlast");
    const s = new LineSplitter(100);
    const told: string[] = [];
    for (let i = 0; i < bytes.length; i++)
      // one byte at a time: every cut
      s.push(bytes.subarray(i, i + 1), (line) => told.push(line));
    expect(told).toEqual(["é1", "ü2 漢字", "😀 end"]);
    expect(s.flush()).toBe("last");
    const whole = new LineSplitter(100);
    expect(lines(whole, bytes.subarray(0, 3), bytes.subarray(3))).toEqual([
      "é1",
      "ü2 漢字",
      "😀 end",
    ]);
  });
  it("fails as soon as a line passes the bound, before the newline arrives", () => {
    const s = new LineSplitter(10);
    expect(() => lines(s, Buffer.from("x".repeat(11)))).toThrowError(
      /more than 10 bytes/,
    );
  });
  it("counts a line's bytes, not its characters, and tells the lines before a long one", () => {
    const s = new LineSplitter(10);
    const told: string[] = [];
    // "é" is 2 bytes: 5 of them fit, 6 do not, though 6 characters would
    expect(() =>
      s.push(Buffer.from("ok\néééée\néééééé\nnext\n"), (l) => told.push(l)),
    ).toThrowError(/more than 10 bytes/);
    expect(told).toEqual(["ok", "éééée"]);
    expect(lines(new LineSplitter(10), Buffer.from("ééééé\n"))).toEqual([
      "ééééé",
    ]);
  });
});

describe("permission options", () => {
  const options = [
    { optionId: "approved", name: "y", kind: "allow_once" as const },
    { optionId: "always", name: "a", kind: "allow_always" as const },
    { optionId: "abort", name: "n", kind: "reject_once" as const },
  ];
  it("picks by kind and answers with the agent's own id", () => {
    expect(outcomeFor("allow", options)).toEqual({
      outcome: "selected",
      optionId: "approved",
    });
    expect(outcomeFor("reject", options)).toEqual({
      outcome: "selected",
      optionId: "abort",
    });
    expect(outcomeFor("reject", options.slice(0, 2))).toEqual({
      outcome: "cancelled",
    });
    expect(
      isAllowed({ outcome: "selected", optionId: "always" }, options),
    ).toBe(true);
    expect(isAllowed({ outcome: "selected", optionId: "abort" }, options)).toBe(
      false,
    );
    expect(isAllowed({ outcome: "cancelled" }, options)).toBe(false);
  });
  it.each([
    ["approve-all", "edit", "approved"],
    ["deny-all", "read", "abort"],
    ["approve-reads", "read", "approved"],
    ["approve-reads", "execute", "abort"],
    ["approve-reads", undefined, "abort"],
    ["ask", "read", "abort"],
  ] as const)("mode %s, kind %s → %s", async (mode, kind, optionId) => {
    const request = {
      sessionId: "s",
      toolCall: { toolCallId: "t", kind },
      options,
    };
    const engine = new PermissionEngine({ mode });
    const answer = await engine.decide(
      request,
      "/w",
      new AbortController().signal,
    );
    expect(answer.outcome).toEqual({
      outcome: "selected",
      optionId,
    });
  });
});

describe("protocol versions", () => {
  it("accepts 1 and refuses others clearly", () => {
    expect(checkAgentProtocolVersion(1)).toEqual({ ok: true, version: 1 });
    expect(checkAgentProtocolVersion(2)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/version 2/),
    });
    expect(checkAgentProtocolVersion("2025-01-01")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not an integer/),
    });
  });
  it("normalizes what editors send", () => {
    expect(normalizeProtocolVersion(1)).toEqual({
      version: 1,
      normalized: false,
    });
    expect(normalizeProtocolVersion("2024-11-05")).toEqual({
      version: 1,
      normalized: true,
    });
  });
});

describe("bounded buffers", () => {
  it("AsyncQueue delivers in order and fails with LIMIT_EXCEEDED past its bound", async () => {
    const q = new AsyncQueue<number>(2);
    q.push(1);
    q.push(2);
    q.push(3);
    const it = q[Symbol.asyncIterator]();
    expect(await it.next()).toEqual({ value: 1, done: false });
    expect(await it.next()).toEqual({ value: 2, done: false });
    await expect(it.next()).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
  });
  it("AsyncQueue.poll takes what is queued without waiting, in order with next(), items before a failure first", async () => {
    const q = new AsyncQueue<number>(10);
    const it = q[Symbol.asyncIterator]();
    expect(q.poll()).toBeUndefined();
    q.push(1);
    q.push(2);
    q.push(3);
    expect(await it.next()).toEqual({ value: 1, done: false });
    expect(q.poll()).toBe(2);
    q.fail(new Error("agent gone"));
    expect(q.poll()).toBe(3);
    expect(q.poll()).toBeUndefined();
    await expect(it.next()).rejects.toThrow("agent gone");
  });
  it("TailBuffer keeps the last bytes and marks the cut", () => {
    const t = new TailBuffer(5);
    t.push(Buffer.from("hello "));
    t.push(Buffer.from("world"));
    expect(t.summary()).toBe("…world");
    expect(t.text()).toBe("world");
  });
  it("resolveLimits quotes a bad value", () => {
    expect(() => resolveLimits({ cancelGraceMs: -1 })).toThrowError(
      /cancelGraceMs must be a positive integer, got -1/,
    );
    expect(resolveLimits({ cancelGraceMs: 5 }).cancelGraceMs).toBe(5);
  });
});

describe("mock scenarios", () => {
  it("parses a prompt scenario and ignores other text", () => {
    expect(scenarioFromPrompt('{"steps":[{"text":"a"}]}')).toEqual({
      steps: [{ text: "a" }],
    });
    expect(scenarioFromPrompt("hello {")).toBeUndefined();
  });
  it("names the bad step", () => {
    expect(() =>
      validateScenario({ steps: [{ text: "a" }, { bogus: 1 }] }, "f"),
    ).toThrowError(/f: step 1 needs exactly one step key, got \["bogus"\]/);
    expect(() =>
      validateScenario({ steps: [{ text: "a", sleep: 1 }] }, "f"),
    ).toThrowError(/step 0/);
  });
});
