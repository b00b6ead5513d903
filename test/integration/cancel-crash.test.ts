// Cancellation, crashes and hangs mid-turn: each ends clearly and leaves no process behind.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
import {
  collect,
  connectMock,
  groupGone,
  steps,
  waitFor,
} from "../helpers/mock.js";

let agent: AgentConnection | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe("cancel", () => {
  it("aborting the signal sends session/cancel and the run ends cancelled; the agent lives on", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const controller = new AbortController();
    const run = session.prompt(
      steps({ text: "started" }, { sleep: 30_000 }, { text: "never" }),
      {
        signal: controller.signal,
      },
    );
    const started = Date.now();
    const events = [];
    for await (const event of run) {
      events.push(event);
      controller.abort();
    }
    expect((await run.result).stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(15_000); // not the 30 s sleep
    expect(JSON.stringify(events)).not.toContain("never");
    expect((await session.chat("again")).text).toContain("again");
  });

  it("answers a pending permission request with cancelled", async () => {
    let asked!: () => void;
    const askedPromise = new Promise<void>((r) => (asked = r));
    agent = await connectMock([], {
      host: {
        requestPermission: () => (asked(), new Promise(() => undefined)),
      },
    });
    const session = await agent.newSession({ cwd: process.cwd() });
    const controller = new AbortController();
    const run = session.prompt(
      steps({ permission: { title: "Edit", kind: "edit" } }),
      { signal: controller.signal },
    );
    const eventsPromise = collect(run);
    await askedPromise;
    controller.abort();
    const events = await eventsPromise;
    expect(events.find((e) => e.type === "permission")).toMatchObject({
      decidedBy: "cancelled",
      outcome: { outcome: "cancelled" },
    });
    expect((await run.result).stopReason).toBe("cancelled");
  });

  it("a signal aborted before the turn starts ends it at once without sending it", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const result = await session.prompt("x", { signal: AbortSignal.abort() })
      .result;
    expect(result.stopReason).toBe("cancelled");
  });
});

describe("an agent that ignores cancel", () => {
  it("is killed after the grace period and the run fails with AGENT_UNRESPONSIVE", async () => {
    agent = await connectMock([], { cancelGraceMs: 300 });
    const pid = agent.pid!;
    const session = await agent.newSession({ cwd: process.cwd() });
    const controller = new AbortController();
    const run = session.prompt(steps({ text: "x" }, { hang: true }), {
      signal: controller.signal,
    });
    // Cancel once the agent is past its text, in the step that ignores cancel (a fixed delay
    // could cancel before that under load, and the agent would end the turn `cancelled`).
    for await (const _event of run) break;
    controller.abort();
    await expect(run.result).rejects.toMatchObject({
      code: "AGENT_UNRESPONSIVE",
    });
    await expect(run.result).rejects.toThrow(
      /did not end the turn within 300 ms/,
    );
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });
});

describe("an agent that crashes mid-turn", () => {
  it("fails the run with AGENT_EXITED carrying the exit code, and leaves nothing behind", async () => {
    agent = await connectMock();
    const pid = agent.pid!;
    const session = await agent.newSession({ cwd: process.cwd() });
    const run = session.prompt(
      steps(
        { text: "partial" },
        { stderr: "panic: out of tokens" },
        { exit: 7 },
      ),
    );
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for await (const event of run) seen.push(JSON.stringify(event));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toMatchObject({ code: "AGENT_EXITED", details: { code: 7 } });
    expect(String((error as Error).message)).toMatch(
      /exited with code 7; stderr: panic: out of tokens/,
    );
    expect(seen.join()).toContain("partial");
    await expect(run.result).rejects.toMatchObject({ code: "AGENT_EXITED" });
    expect(agent.alive).toBe(false);
    await expect(session.chat("more")).rejects.toMatchObject({
      code: "AGENT_EXITED",
    });
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });
});
