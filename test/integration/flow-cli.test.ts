// `acphub flow` end to end: the real CLI runs workflows whose every agent is the mock agent.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, tempDir, waitFor } from "../helpers/mock.js";

type Ev = Record<string, unknown>;

// A project folder with these workflow files, and a home whose config names mock agents.
function project(
  files: Record<string, string>,
  agents: Record<string, string[]> = {},
) {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  const dir = join(cwd, ".acphub", "workflows");
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(dir, `${name}.yaml`), text);
  const entries = Object.fromEntries(
    Object.entries(agents).map(([n, flags]) => [
      n,
      { command: process.execPath, args: [CLI, "mock-agent", ...flags] },
    ]),
  );
  writeFileSync(join(home, "config.json"), JSON.stringify({ agents: entries }));
  return { home, cwd, dir };
}

const updates = (events: Ev[]) =>
  events
    .filter((e) => e["type"] === "session_update")
    .map((e) => e["update"] as Ev);
const stepOf = (u: Ev) =>
  (u["_meta"] as { acphub?: { step?: string } } | undefined)?.acphub?.step;
const stepEnds = (events: Ev[], id: string) =>
  updates(events).filter(
    (u) =>
      u["sessionUpdate"] === "tool_call_update" &&
      String(u["toolCallId"]).endsWith(`/${id}`) &&
      stepOf(u) === id,
  );

const FOUR = `name: four
description: look, confirm, test, review
input: { required: true }
steps:
  - id: look
    agent: mock
    prompt: "Look at {{ input }}"
  - id: confirm
    approve: "Apply this plan?\\n{{ steps.look.output }}"
  - id: test
    run: "echo tested $ACPHUB_STEP_CONFIRM_STATUS"
    preapproved: true
  - id: review
    parallel:
      - { agent: mock, prompt: "review one" }
      - { agent: mock, prompt: "review two" }
`;

describe("acphub flow run", () => {
  it("runs four steps with the gate approved: plan, one tool call per step, step-marked messages", async () => {
    const p = project({ four: FOUR });
    const r = await runCli(
      ["flow", "run", "four", "the parser", "--json", "--approve", "-C", p.cwd],
      { home: p.home },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.at(-1)).toMatchObject({
      type: "result",
      status: "completed",
    });
    const plans = updates(events).filter((u) => u["sessionUpdate"] === "plan");
    const lastPlan = plans.at(-1)!["entries"] as Ev[];
    expect(lastPlan.map((e) => [e["content"], e["status"]])).toEqual([
      ["look · mock", "completed"],
      ["confirm · approval", "completed"],
      ["test · echo tested $ACPHUB_STEP_CONFIRM_STATUS", "completed"],
      ["review · mock + mock", "completed"],
    ]);
    const calls = updates(events).filter(
      (u) => u["sessionUpdate"] === "tool_call" && stepOf(u),
    );
    expect(calls.map((c) => c["title"])).toContain("look · mock");
    // A shell step's title is its command as the file says (data reaches it as variables).
    expect(calls.map((c) => c["title"])).toContain(
      "test · echo tested $ACPHUB_STEP_CONFIRM_STATUS",
    );
    const look = updates(events).find(
      (u) =>
        u["sessionUpdate"] === "agent_message_chunk" && stepOf(u) === "look",
    );
    expect(look).toBeDefined();
    expect(JSON.stringify(stepEnds(events, "look")[0]?.["content"])).toContain(
      "mock agent received: Look at the parser",
    );
    expect(JSON.stringify(stepEnds(events, "test")[0]?.["content"])).toContain(
      "tested completed",
    );
    const gate = calls.find((c) => c["title"] === "confirm · approval")!;
    expect(JSON.stringify(gate["content"])).toContain(
      "Apply this plan?\\nmock agent received",
    );
    // Parallel branches both streamed, each marked with its own branch.
    const branches = new Set(
      updates(events)
        .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
        .map(stepOf),
    );
    expect([...branches].sort()).toEqual(["look", "review.1", "review.2"]);
    // Each step agent's session is in the ledger as a child of the run's session.
    const runId = String(events[0]!["sessionId"]);
    const list = await runCli(["sessions", "list", "--json"], { home: p.home });
    const sessions = JSON.parse(list.stdout) as Ev[];
    const children = sessions.filter((s) =>
      JSON.stringify(s).includes(`"parentSession":"${runId}"`),
    );
    expect(children.map((s) => s["title"]).sort()).toEqual([
      `${runId} · look`,
      `${runId} · review.1`,
      `${runId} · review.2`,
    ]);
  });

  it("shows a shell step's title rendered as it started, at the terminal too", async () => {
    const filtered = FOUR.replace(
      '$ACPHUB_STEP_CONFIRM_STATUS"\n    preapproved: true',
      '{{ steps.confirm.status | shell }}"',
    );
    const p = project({ four: filtered });
    writeFileSync(
      join(p.home, "config.json"),
      JSON.stringify({ permissions: { mode: "approve-all" } }),
    );
    const r = await runCli(
      ["flow", "run", "four", "the parser", "--approve", "-C", p.cwd],
      { home: p.home },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "[step] test · echo tested 'completed': completed",
    );
    expect(r.stderr).not.toContain("{{");
  });

  it("steps of the same agent share one process: one spawn for two steps and two parallel branches", async () => {
    const p = project({
      pooled: `name: pooled
steps:
  - { id: a, agent: counted, prompt: "one" }
  - { id: b, agent: counted, prompt: "two {{ steps.a.output }}" }
  - id: c
    parallel:
      - { agent: counted, prompt: "three" }
      - { agent: counted, prompt: "four" }
`,
    });
    const spawns = join(p.home, "spawns");
    writeFileSync(
      join(p.home, "config.json"),
      JSON.stringify({
        agents: {
          counted: {
            command: "sh",
            args: [
              "-c",
              `echo spawned >> "${spawns}"; exec "${process.execPath}" "${CLI}" mock-agent`,
            ],
          },
        },
      }),
    );
    const r = await runCli(["flow", "run", "pooled", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(JSON.stringify(stepEnds(events, "b"))).toContain(
      "mock agent received: two mock agent received: one",
    );
    const c = JSON.stringify(stepEnds(events, "c"));
    expect(c).toContain("mock agent received: three");
    expect(c).toContain("mock agent received: four");
    expect(readFileSync(spawns, "utf8")).toBe("spawned\n");
  });

  it("without a terminal or --approve a gate waits: exit 5, later steps not run", async () => {
    const p = project({ four: FOUR });
    const r = await runCli(
      ["flow", "run", "four", "x", "--json", "-C", p.cwd],
      { home: p.home },
    );
    expect(r.code).toBe(5);
    const events = jsonLines(r.stdout);
    expect(events.find((e) => e["type"] === "error")).toMatchObject({
      code: "WORKFLOW_GATE_REJECTED",
    });
    expect(
      String(events.find((e) => e["type"] === "error")!["message"]),
    ).toMatch(/--approve/);
    expect(stepEnds(events, "test")).toHaveLength(0);
    expect(events.find((e) => e["type"] === "result")).toMatchObject({
      status: "waiting",
      step: "confirm",
    });
  });

  it("a failing shell step loops back at most maxAttempts times, then the run fails naming it", async () => {
    const p = project({
      loop: `name: loop
steps:
  - id: fix
    agent: mock
    prompt: "fix it, last test said: {{ steps.test.output }}"
  - id: test
    run: "echo still failing; exit 3"
    preapproved: true
    onFailure: { goto: fix, maxAttempts: 3 }
  - id: never
    run: "echo never"
    preapproved: true
`,
    });
    const r = await runCli(["flow", "run", "loop", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(1);
    const events = jsonLines(r.stdout);
    expect(stepEnds(events, "test").map((u) => u["status"])).toEqual([
      "failed",
      "failed",
      "failed",
    ]);
    expect(stepEnds(events, "fix")).toHaveLength(3);
    expect(JSON.stringify(stepEnds(events, "fix")[1]?.["content"])).toContain(
      "last test said: still failing",
    );
    expect(stepEnds(events, "never")).toHaveLength(0);
    const error = events.find((e) => e["type"] === "error")!;
    expect(error).toMatchObject({ code: "WORKFLOW_STEP_FAILED" });
    expect(String(error["message"])).toMatch(
      /step test failed: still failing\n\[exit 3\]/,
    );
  });

  it("a shell step the terminal policy denies fails with the rule's name", async () => {
    const p = project({
      bad: `name: bad\nsteps:\n  - { id: wipe, run: "rm -rf /", preapproved: true }\n`,
    });
    const r = await runCli(["flow", "run", "bad", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(1);
    const end = stepEnds(jsonLines(r.stdout), "wipe")[0]!;
    expect(end["status"]).toBe("failed");
    expect(JSON.stringify(end["content"])).toContain("rm-rf-root-or-home");
  });

  it("a secret's value is masked in step output, shown and stored", async () => {
    const p = project({
      leak: `name: leak\nsteps:\n  - { id: say, run: "echo key=sekret-value-123", preapproved: true }\n`,
    });
    const env = { MY_API_TOKEN: "sekret-value-123" };
    const r = await runCli(["flow", "run", "leak", "--json", "-C", p.cwd], {
      home: p.home,
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("key=");
    expect(r.stdout).not.toContain("sekret-value-123");
    const runId = String(jsonLines(r.stdout)[0]!["sessionId"]);
    const shown = await runCli(["sessions", "show", runId, "--json"], {
      home: p.home,
      env: {},
    });
    expect(shown.stdout).toContain("key=");
    expect(shown.stdout).not.toContain("sekret-value-123");
  });

  it("a step past its deadline stops the run: WORKFLOW_TIMEOUT, exit 3", async () => {
    const p = project({
      late: `name: late\nsteps:\n  - { id: nap, run: "sleep 30", preapproved: true, timeoutMs: 300 }\n  - { id: after, run: "echo after", preapproved: true }\n`,
    });
    const r = await runCli(["flow", "run", "late", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(3);
    const events = jsonLines(r.stdout);
    expect(events.find((e) => e["type"] === "error")).toMatchObject({
      code: "WORKFLOW_TIMEOUT",
    });
    expect(events.find((e) => e["type"] === "result")).toMatchObject({
      status: "timeout",
      step: "nap",
    });
    expect(stepEnds(events, "after")).toHaveLength(0);
  });

  it("an unknown workflow is WORKFLOW_NOT_FOUND, exit 2", async () => {
    const p = project({});
    const r = await runCli(["flow", "run", "nope", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no workflow "nope" in .*\.acphub\/workflows/);
  });
});

describe("acphub flow validate", () => {
  it.each([
    ["invalid YAML", "name: v\nsteps: [\n", /v\.yaml:3:1: invalid YAML/],
    [
      "an unknown agent",
      "name: v\nsteps:\n  - { id: a, agent: ghost, prompt: hi }\n",
      /v\.yaml:3:21: unknown agent "ghost"/,
    ],
    [
      "an unknown template reference",
      'name: v\nsteps:\n  - id: a\n    run: "echo {{ steps.b.output }}"\n',
      /v\.yaml:4:10: unknown step "b"/,
    ],
    [
      "a cycle without a bound",
      'name: v\nsteps:\n  - { id: a, run: "true", preapproved: true }\n  - id: b\n    run: "false"\n    onFailure: { goto: a }\n',
      /v\.yaml:6:16: onFailure\.goto "a" makes a cycle without a bound/,
    ],
  ])("refuses %s naming the place (exit 2)", async (_what, text, expected) => {
    const p = project({ v: text });
    const r = await runCli(["flow", "validate", join(p.dir, "v.yaml")], {
      home: p.home,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(expected);
  });

  it("accepts a good file and lists it with its description", async () => {
    const p = project({ four: FOUR });
    const v = await runCli(["flow", "validate", "-C", p.cwd], { home: p.home });
    expect([v.code, v.stdout]).toEqual([
      0,
      `${join(p.dir, "four.yaml")}: ok\n`,
    ]);
    const l = await runCli(["flow", "list", "-C", p.cwd], { home: p.home });
    expect(l.stdout).toMatch(/^four +project +look, confirm, test, review\n$/);
  });
});

describe("acphub flow resume", () => {
  it("after kill -9 mid-step continues at that step; step 1's agent never gets its prompt twice", async () => {
    const base = tempDir();
    const firstSessions = join(base, "first.json");
    const slowScenario = join(base, "slow.json");
    writeFileSync(slowScenario, JSON.stringify({ steps: [{ sleep: 60_000 }] }));
    const p = project(
      {
        crash: `name: crash
steps:
  - { id: one, agent: first, prompt: "step one {{ input }}" }
  - { id: ok, approve: "go on?" }
  - { id: two, agent: slow, prompt: "step two after {{ steps.one.output }}" }
  - { id: three, run: "echo three done", preapproved: true }
`,
      },
      {
        first: ["--sessions-file", firstSessions],
        slow: ["--scenario", slowScenario],
      },
    );
    let stdout = "";
    let child: import("node:child_process").ChildProcess | undefined;
    const first = runCli(
      ["flow", "run", "crash", "x", "--json", "--approve", "-C", p.cwd],
      {
        home: p.home,
        onSpawn: (c) => {
          child = c;
          c.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
        },
      },
    );
    const midStep = () => stdout.includes('"title":"two · slow"');
    // Two agents start and a gate passes first: a busy machine took longer than 15 s.
    expect(await waitFor(midStep, 60_000)).toBe(true);
    child!.kill("SIGKILL");
    const killed = await first;
    expect(killed.code).toBe(null);
    const runId = String(jsonLines(killed.stdout)[0]!["sessionId"]);

    writeFileSync(
      slowScenario,
      JSON.stringify({ steps: [{ text: "two done" }] }),
    );
    const r = await runCli(["flow", "resume", runId, "--json"], {
      home: p.home,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.at(-1)).toMatchObject({
      type: "result",
      runId,
      status: "completed",
    });
    expect(JSON.stringify(stepEnds(events, "two")[0]?.["content"])).toContain(
      "two done",
    );
    expect(JSON.stringify(stepEnds(events, "one")[0]?.["content"])).toContain(
      "mock agent received: step one x",
    );
    // Step 1's agent got its prompt once, across both processes.
    const saved = JSON.parse(readFileSync(firstSessions, "utf8")) as [
      string,
      { turns: number },
    ][];
    expect(saved.map(([, s]) => s.turns)).toEqual([1]);
    // A finished run is not run again.
    const again = await runCli(["flow", "resume", runId], { home: p.home });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already completed/);
  }, 150_000);
});
