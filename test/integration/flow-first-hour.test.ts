// Issue 28, workflow items: every error of a workflow file at once, each at file:line:column
// with "did you mean"; `flow resume` says "done earlier" for the steps it does not run again.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

type Ev = Record<string, unknown>;

// A project folder with one workflow file, and a home with no config (the mock agent).
function project(name: string, text: string) {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  const dir = join(cwd, ".acphub", "workflows");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return { home, cwd, file };
}

const GATED = `name: gated
steps:
  - { id: look, agent: mock, prompt: "look at {{ input }}" }
  - { id: ok, approve: "go on?" }
  - { id: test, run: "echo tested", preapproved: true }
`;

// The step tool calls (not the step agents' own) of one step.
const stepCalls = (events: Ev[], step: string) =>
  events
    .filter((e) => e["type"] === "session_update")
    .map((e) => e["update"] as Ev)
    .filter(
      (u) =>
        String(u["sessionUpdate"]).startsWith("tool_call") &&
        String(u["toolCallId"]).endsWith(`/${step}`),
    );

describe("flow resume says done earlier", () => {
  it("a step finished before the stop is 'done earlier', never in_progress, in text and --json", async () => {
    const p = project("gated", GATED);
    const first = await runCli(["flow", "run", "gated", "x", "--json"], {
      home: p.home,
      cwd: p.cwd,
    });
    expect(first.code).toBe(5); // the gate had no terminal to ask
    const runId = String(jsonLines(first.stdout)[0]!["sessionId"]);
    const again = await runCli(["flow", "resume", runId, "--approve"], {
      home: p.home,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("[step] look · mock: done earlier");
    expect(again.stderr).not.toContain("look · mock (in_progress)");
    expect(again.stderr).toContain("[step] test · echo tested: completed");

    const second = await runCli(["flow", "run", "gated", "y", "--json"], {
      home: p.home,
      cwd: p.cwd,
    });
    const id2 = String(jsonLines(second.stdout)[0]!["sessionId"]);
    const json = await runCli(["flow", "resume", id2, "--approve", "--json"], {
      home: p.home,
    });
    expect(json.code).toBe(0);
    const events = jsonLines(json.stdout);
    const look = stepCalls(events, "look");
    expect(look.length).toBeGreaterThan(0);
    for (const u of look)
      expect(u).toMatchObject({
        status: "completed",
        _meta: { acphub: { step: "look", doneEarlier: true } },
      });
    const plans = events
      .map((e) => e["update"] as Ev | undefined)
      .filter((u) => u?.["sessionUpdate"] === "plan")
      .map((u) => (u!["entries"] as Ev[])[0]!["status"]);
    expect(plans).not.toContain("in_progress");
    for (const u of stepCalls(events, "test"))
      expect(JSON.stringify(u["_meta"])).not.toContain("doneEarlier");
  });
});

// One file, many mistakes: a typo in a top key, in a step key, in an action key, a template
// naming a misspelt step, a goto to a misspelt step, a misspelt agent, a bad number.
const MANY = `name: many
descripton: typos everywhere
steps:
  - id: look
    agent: mock
    promt: "look at {{ input }}"
  - id: ok
    aprove: "go on?"
  - id: test
    run: "echo {{ steps.lok.output }}"
    onFailure: { goto: tset }
  - id: review
    agent: mokc
    prompt: review
    timeoutMs: -5
`;

describe("a workflow file with many errors", () => {
  it("flow validate reports every one at once, in file order, with file:line:column and did you mean", async () => {
    const p = project("many", MANY);
    const r = await runCli(["flow", "validate", p.file], { home: p.home });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const f = p.file;
    expect(r.stderr).toBe(
      [
        `acphub: ${f}:2:1: unknown key descripton (did you mean "description"?)`,
        `${f}:6:5: unknown key steps.0.promt (did you mean "prompt"?)`,
        `${f}:8:5: unknown key steps.1.aprove (did you mean "approve"?)`,
        `${f}:10:10: unknown step "lok" in {{ steps.lok.output }} (did you mean "look"?)`,
        `${f}:11:24: onFailure.goto names no step: "tset" (did you mean "test"?)`,
        `${f}:13:12: unknown agent "mokc" (did you mean "mock"?) (see acphub agents list)`,
        `${f}:15:16: steps.3.timeoutMs: Too small: expected number to be >0`,
        "",
      ].join("\n"),
    );
    const json = await runCli(["flow", "validate", p.file, "--json"], {
      home: p.home,
    });
    expect(json.code).toBe(2);
    const { files } = JSON.parse(json.stdout) as {
      files: { file: string; valid: boolean; problems: Ev[] }[];
    };
    expect(files).toHaveLength(1);
    expect(files[0]!.valid).toBe(false);
    expect(files[0]!.problems).toHaveLength(7);
    expect(files[0]!.problems[2]).toEqual({
      line: 8,
      column: 5,
      message: 'unknown key steps.1.aprove (did you mean "approve"?)',
    });
  });

  it("flow run refuses it with the same list, before running anything", async () => {
    const p = project("many", MANY);
    const r = await runCli(["flow", "run", "many", "x"], {
      home: p.home,
      cwd: p.cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n").filter((l) => l.includes(p.file))).toHaveLength(
      7,
    );
    expect(r.stderr).toContain('aprove (did you mean "approve"?)');
    expect(r.stdout).toBe("");
  });
});
