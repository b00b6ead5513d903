// Issue 16, item 7: plain `run` says how a turn ended when it did not simply end, with an exit
// code per stop reason, and tool lines show the status a tool call ended with.
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { steps } from "../helpers/mock.js";

describe("how a turn ended", () => {
  it.each([
    ["max_tokens", 6, "the agent reached its token limit"],
    [
      "max_turn_requests",
      6,
      "the agent reached its limit of model requests for one turn",
    ],
    ["refusal", 7, "the agent refused to continue"],
    ["cancelled", 130, "the turn was cancelled"],
  ])("%s: said on stderr, exit %i", async (reason, code, says) => {
    const r = await runCli([
      "run",
      steps({ text: "partial" }, { stop: reason }),
    ]);
    expect(r.stdout).toBe("partial\n");
    expect(r.stderr).toContain(`acphub: ${says} (stop reason: ${reason})\n`);
    expect(r.code).toBe(code);
    const json = await runCli([
      "run",
      "--json",
      steps({ text: "partial" }, { stop: reason }),
    ]);
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({
      type: "result",
      stopReason: reason,
    });
    expect(json.stderr).toBe("");
    expect(json.code).toBe(code);
  });

  it("end_turn says nothing more and exits 0", async () => {
    const r = await runCli(["run", steps({ text: "done" })]);
    expect(r.stderr).not.toMatch(/stop reason/);
    expect(r.code).toBe(0);
  });

  it("tool lines show the status each tool call ended with", async () => {
    const r = await runCli([
      "run",
      steps(
        { toolCall: { toolCallId: "t1", title: "Read a.txt", kind: "read" } },
        {
          toolCall: {
            toolCallId: "t2",
            title: "Run tests",
            kind: "execute",
            status: "in_progress",
          },
        },
        { toolCallUpdate: { toolCallId: "t1", status: "in_progress" } },
        { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
        { toolCallUpdate: { toolCallId: "t2", status: "failed" } },
        { text: "ok" },
      ),
    ]);
    const tools = r.stderr.split("\n").filter((l) => l.startsWith("[tool]"));
    expect(tools).toEqual([
      "[tool] Read a.txt (pending)",
      "[tool] Run tests (in_progress)",
      "[tool] Read a.txt (completed)",
      "[tool] Run tests (failed)",
    ]);
    expect(r.code).toBe(0);
  });
});
