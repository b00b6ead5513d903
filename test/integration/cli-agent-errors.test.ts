// Issue 16, item 2: the agent's own reason for an error reaches the user, and `agents doctor`
// names the usual causes.
import { describe, expect, it } from "vitest";
import { homeWithScriptAgent, jsonLines, runCli } from "../helpers/cli.js";

// A tiny ACP agent that starts fine and then fails session/new the way Claude's adapter does
// when Claude Code is not logged in: "Internal error", the reason in `data`, a line on stderr.
const FAILING_AGENT = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  else if (m.method === "session/new") {
    process.stderr.write("Invalid API key · Please run /login\\n");
    send({ id: m.id, error: { code: -32603, message: "Internal error",
      data: { details: "Claude Code process exited with code 1" } } });
  }
});`;

describe("the agent's own error reason", () => {
  it("run shows the message and data of the agent's error, not just Internal error", async () => {
    const r = await runCli(["run", JSON.stringify({ steps: [{ bogus: 1 }] })]);
    expect(r.stderr).toContain(
      'agent "mock" answered session/prompt with error -32603: Internal error: prompt scenario: step 0 needs exactly one step key, got ["bogus"]',
    );
    expect(r.code).toBe(1);
    const json = await runCli([
      "run",
      "--json",
      JSON.stringify({ steps: [{ bogus: 1 }] }),
    ]);
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "AGENT_ERROR",
      message: expect.stringContaining("step 0 needs exactly one step key"),
    });
  });

  it("a long data is bounded", async () => {
    const long = "x".repeat(5000);
    const r = await runCli(["run", JSON.stringify({ steps: [{ [long]: 1 }] })]);
    expect(r.stderr).toContain("Internal error: prompt scenario");
    expect(r.stderr).toContain("…");
    expect(r.stderr.length).toBeLessThan(3000);
  });

  it("agents doctor shows the agent's reason, its stderr and a hint", async () => {
    const r = await runCli(["agents", "doctor", "failing"], {
      home: homeWithScriptAgent("failing", FAILING_AGENT),
    });
    expect(r.stdout).toContain("spawn + initialize");
    expect(r.stdout).toContain(
      "Internal error: Claude Code process exited with code 1",
    );
    expect(r.stdout).toContain(
      "agent stderr: Invalid API key · Please run /login",
    );
    expect(r.stdout).toMatch(/hint: it looks like failing is not logged in/);
    expect(r.code).toBe(1);
  });
});
