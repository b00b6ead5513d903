// Issue 15: what a consumer or a hung agent does must not take acphub's agent connection with it.
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
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
