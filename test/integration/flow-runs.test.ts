// A gate nobody can answer (no terminal, no --approve) leaves the run waiting there, not refused:
// `flow resume RUN --approve` passes it; `flow runs` lists the runs and where each stands.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

const GATED = `name: gated
steps:
  - { id: before, run: "echo before" }
  - { id: confirm, approve: "go on?" }
  - { id: after, run: "echo after" }
`;

// A project folder with the gated workflow, and an empty home.
function project() {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
  writeFileSync(join(cwd, ".acphub", "workflows", "gated.yaml"), GATED);
  return { home, cwd };
}

const runs = async (home: string, all = false) => {
  const r = await runCli(
    ["flow", "runs", "--json", ...(all ? ["--all"] : [])],
    {
      home,
    },
  );
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
};

describe("acphub flow: a gate without an approver, and flow runs", () => {
  it("waits at the gate (exit 5), is listed as waiting, and flow resume --approve completes it", async () => {
    const p = project();
    const first = await runCli(
      ["flow", "run", "gated", "--json", "-C", p.cwd],
      {
        home: p.home,
      },
    );
    expect(first.code).toBe(5);
    const events = jsonLines(first.stdout);
    const result = events.find((e) => e["type"] === "result")!;
    expect(result).toMatchObject({ status: "waiting", step: "confirm" });
    const runId = String(result["runId"]);
    expect(
      String(events.find((e) => e["type"] === "error")!["message"]),
    ).toContain(`acphub flow resume ${runId} --approve`);
    expect(JSON.stringify(events)).not.toContain("after\\n");
    // The gate's tool call is left pending, not failed.
    const gateEnd = events
      .map((e) => e["update"] as Record<string, unknown> | undefined)
      .filter(
        (u) =>
          u?.["sessionUpdate"] === "tool_call_update" &&
          String(u["toolCallId"]).endsWith("/confirm"),
      )
      .at(-1);
    expect(gateEnd?.["status"]).toBe("pending");

    expect(await runs(p.home)).toMatchObject([
      { runId, workflow: "gated", state: "waiting", step: "confirm" },
    ]);
    const plain = await runCli(["flow", "runs"], { home: p.home });
    expect(plain.stdout).toMatch(
      new RegExp(`^${runId} +waiting +confirm +gated `),
    );

    const resumed = await runCli(
      ["flow", "resume", runId, "--approve", "--json"],
      {
        home: p.home,
      },
    );
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(jsonLines(resumed.stdout).at(-1)).toMatchObject({
      type: "result",
      runId,
      status: "completed",
    });
    expect(resumed.stdout).toContain("after");

    expect(await runs(p.home)).toEqual([]);
    const none = await runCli(["flow", "runs"], { home: p.home });
    expect(none.stdout).toBe("no unfinished workflow runs\n");
    expect(await runs(p.home, true)).toMatchObject([
      { runId, workflow: "gated", state: "completed" },
    ]);
  }, 120_000);
});
