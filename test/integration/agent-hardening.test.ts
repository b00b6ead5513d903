// Issue 15: what a consumer or a hung agent does must not take acphub's agent connection with it.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
import { AgentPool } from "../../src/agents/pool.js";
import { connectMock, steps } from "../helpers/mock.js";

let agent: AgentConnection | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe("a consumer that throws", () => {
  it("a throwing session listener is isolated: the agent lives on and other listeners still hear", async () => {
    agent = await connectMock(["--modes"]);
    const session = await agent.newSession({ cwd: process.cwd() });
    const heard: string[] = [];
    session.onEvent(() => {
      throw new Error("consumer bug");
    });
    session.onEvent((event) => heard.push(event.type));
    await session.setMode("code"); // the mock sends current_mode_update outside a turn
    expect(heard).toEqual(["session_update"]);
    expect(agent.alive).toBe(true);
    expect((await session.chat("still there")).text).toContain("still there");
  });

  it("a host that throws on an extension notification outside a session does not fail the agent", async () => {
    agent = await connectMock([], {
      host: {
        onExtNotification: () => {
          throw new Error("host bug");
        },
      },
    });
    const session = await agent.newSession({ cwd: process.cwd() });
    const turn = steps(
      { extNotification: { method: "_acphub.test/ping", params: {} } },
      { text: "after" },
    );
    expect((await session.chat(turn)).text).toContain("after");
    expect(agent.alive).toBe(true);
  });
});

// A mock agent that takes ten minutes to answer session/resume: a hung request.
const HUNG_RESUME = [
  ...["--session-capabilities", "resume"],
  ...["--resume-delay-ms", "600000"],
];

describe("requests to a hung agent", () => {
  it("a session request ends with TIMEOUT after requestTimeoutMs, and the agent lives on", async () => {
    agent = await connectMock(HUNG_RESUME, { requestTimeoutMs: 300 });
    const session = await agent.newSession({ cwd: process.cwd() });
    await expect(
      agent.resumeSession(session.id, { cwd: process.cwd() }),
    ).rejects.toMatchObject({
      code: "TIMEOUT",
      message: expect.stringContaining("session/resume within 300 ms"),
    });
    expect((await session.chat("still there")).text).toContain("still there");
  });

  it("a session request ends when the caller's signal aborts", async () => {
    agent = await connectMock(HUNG_RESUME);
    const session = await agent.newSession({ cwd: process.cwd() });
    const controller = new AbortController();
    const resumed = agent.resumeSession(
      session.id,
      { cwd: process.cwd() },
      controller.signal,
    );
    controller.abort();
    await expect(resumed).rejects.toMatchObject({
      details: { wireCode: -32800 },
    });
  });

  it("a prompt's signal listener is removed when the turn ends", async () => {
    agent = await connectMock();
    const session = await agent.newSession({ cwd: process.cwd() });
    const { signal } = new AbortController();
    for (let i = 0; i < 3; i++) await session.chat("hi", { signal });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});

describe("the pool", () => {
  it("one caller's abort ends only its own wait, not the spawn other callers share", async () => {
    const pool = new AgentPool({
      connect: (_key, signal?: AbortSignal) =>
        connectMock(["--init-delay-ms", "300"], { signal }),
    });
    try {
      const key = { agent: "mock", cwd: process.cwd() };
      const controller = new AbortController();
      const first = pool.acquire(key, controller.signal);
      const second = pool.acquire(key);
      controller.abort();
      await expect(first).rejects.toThrow();
      const lease = await second;
      expect(lease.connection.alive).toBe(true);
      lease.release();
    } finally {
      await pool.close();
    }
  });
});
