// Agents that misbehave at start-up or on the wire: each gets a clear error code and message,
// and no process is left behind.
import { describe, expect, it } from "vitest";
import { connectAgent } from "../../src/agents/connection.js";
import { isHubError } from "../../src/shared/errors.js";
import {
  connectMock,
  groupGone,
  mockLaunch,
  steps,
  waitFor,
} from "../helpers/mock.js";

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isHubError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("agents that fail to start", () => {
  it("a command that does not exist is AGENT_SPAWN_FAILED naming the command", async () => {
    const launch = {
      ...mockLaunch(),
      command: "acphub-no-such-agent-xyz",
      args: [],
      installHint: "npm i -g nothing",
    };
    const error = await failure(connectAgent({ launch }));
    expect(error.code).toBe("AGENT_SPAWN_FAILED");
    expect(error.message).toMatch(
      /"acphub-no-such-agent-xyz" not found \(install it: npm i -g nothing\)/,
    );
  });

  it("an agent that exits before initialize is AGENT_EXITED with its code", async () => {
    const error = await failure(connectMock(["--exit-before-init", "3"]));
    expect(error.code).toBe("AGENT_EXITED");
    expect(error.message).toMatch(
      /exited with code 3 before initialize completed/,
    );
  });

  it("an agent that never answers initialize is INIT_TIMEOUT, and is killed", async () => {
    const launch = mockLaunch(["--no-init-answer"]);
    const error = await failure(
      connectAgent({ launch, initializeTimeoutMs: 400 }),
    );
    expect(error.code).toBe("INIT_TIMEOUT");
    expect(error.message).toMatch(/did not answer initialize within 400 ms/);
    const pid = error.details["pid"] as number;
    expect(pid).toBeGreaterThan(0);
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });

  it("an agent that speaks another protocol version is PROTOCOL_VERSION", async () => {
    const error = await failure(connectMock(["--protocol-version", "2"]));
    expect(error.code).toBe("PROTOCOL_VERSION");
    expect(error.message).toMatch(/speaks protocol version 2; acphub speaks 1/);
  });
});

describe("agents that write what is not ACP to stdout", () => {
  it("a banner before the protocol is ignored and named in a timeout error if nothing follows", async () => {
    const agent = await connectMock(["--banner", "Welcome to MockAgent v1!"]);
    const session = await agent.newSession({ cwd: process.cwd() });
    expect((await session.chat("hi")).text).toContain("hi");
    await agent.close();
    const error = await failure(
      connectAgent({
        // A shell prints the banner at once and never answers (a Node agent's start-up could
        // outlast a short timeout on a loaded machine, before it printed anything).
        launch: {
          ...mockLaunch(),
          command: "sh",
          args: ["-c", "echo Loading...; exec sleep 60"],
        },
        initializeTimeoutMs: 2000,
      }),
    );
    expect(error.code).toBe("INIT_TIMEOUT");
    expect(error.message).toMatch(/it wrote non-JSON to stdout: "Loading..."/);
  });

  it("an agent that keeps writing garbage mid-turn fails with AGENT_PROTOCOL and is killed", async () => {
    const agent = await connectMock();
    const pid = agent.pid!;
    const session = await agent.newSession({ cwd: process.cwd() });
    const run = session.prompt(
      steps({ garbage: "not json at all", repeat: 200 }, { sleep: 5000 }),
    );
    await expect(run.result).rejects.toMatchObject({ code: "AGENT_PROTOCOL" });
    await expect(run.result).rejects.toThrow(
      /non-JSON lines to stdout \(first: "not json at all"\)/,
    );
    expect(await waitFor(() => groupGone(pid))).toBe(true);
    await agent.close();
  });

  // That the line is not buffered is checked deterministically in test/unit/ndjson.test.ts.
  it("a 50 MiB line fails with AGENT_PROTOCOL, and the agent is killed", async () => {
    const agent = await connectMock([], { maxMessageBytes: 1024 * 1024 });
    const pid = agent.pid!;
    const session = await agent.newSession({ cwd: process.cwd() });
    const run = session.prompt(
      steps({ oversized: 50 * 1024 * 1024 }, { sleep: 5000 }),
    );
    await expect(run.result).rejects.toMatchObject({ code: "AGENT_PROTOCOL" });
    await expect(run.result).rejects.toThrow(/more than 1048576 bytes/);
    expect(await waitFor(() => groupGone(pid))).toBe(true);
    await agent.close();
  });
});
