import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findWorkflow, listWorkflows } from "../../src/workflows/discover.js";
import { parseWorkflow } from "../../src/workflows/load.js";
import { render } from "../../src/workflows/templates.js";
import { tempDir } from "../helpers/mock.js";

const options = {
  knownAgent: (n: string) => ["mock", "claude"].includes(n),
  envAllowed: (n: string) => n === "HOME",
};

const GOOD = `name: fix
input: { description: what, required: true }
steps:
  - id: look
    agent: mock
    prompt: "Look at {{ input }} in {{ env.HOME }}"
  - id: ok
    approve: "Go? {{ steps.look.output }}"
  - id: test
    run: "true"
    onFailure: { goto: look, maxAttempts: 2 }
  - id: review
    parallel:
      - { agent: mock, prompt: "a {{ steps.test.status }}" }
      - { agent: claude, prompt: b }
`;

// The message of what parseWorkflow throws.
function refusal(text: string): string {
  try {
    parseWorkflow(text, "w.yaml", options);
  } catch (error) {
    return `${(error as { code: string }).code} ${(error as Error).message}`;
  }
  return "accepted";
}

describe("workflow files", () => {
  it("a good file loads with its four kinds of step", () => {
    const { spec } = parseWorkflow(GOOD, "w.yaml", options);
    expect(spec.steps.map((s) => s.id)).toEqual([
      "look",
      "ok",
      "test",
      "review",
    ]);
  });

  it.each([
    [
      "invalid YAML",
      "name: x\nsteps: [\n",
      /^WORKFLOW_INVALID w\.yaml:3:1: invalid YAML/,
    ],
    [
      "an unknown key",
      GOOD.replace("    agent: mock\n", "    agent: mock\n    agnt: x\n"),
      /^WORKFLOW_INVALID w\.yaml:6:5: unknown key steps\.0\.agnt/,
    ],
    [
      "an unknown agent",
      GOOD.replace("claude", "nobody"),
      /w\.yaml:15:18: unknown agent "nobody"/,
    ],
    [
      "an unknown template reference",
      GOOD.replace("{{ input }}", "{{ steps.nope.output }}"),
      /w\.yaml:6:13: unknown step "nope" in \{\{ steps\.nope\.output \}\}/,
    ],
    [
      "an env name off the allowlist",
      GOOD.replace("env.HOME", "env.AWS_SECRET"),
      /w\.yaml:6:13: \{\{ env\.AWS_SECRET \}\}: AWS_SECRET is not on the env allowlist/,
    ],
    [
      "a reference that is no reference",
      GOOD.replace("{{ input }}", "{{ inputs }}"),
      /unknown template reference \{\{ inputs \}\}/,
    ],
    [
      "a cycle without a bound",
      GOOD.replace("{ goto: look, maxAttempts: 2 }", "{ goto: look }"),
      /w\.yaml:11:16: onFailure\.goto "look" makes a cycle without a bound/,
    ],
    [
      "a goto to no step",
      GOOD.replace("goto: look", "goto: nowhere"),
      /onFailure\.goto names no step: "nowhere"/,
    ],
    [
      "a duplicate id",
      GOOD.replace("id: ok", "id: look"),
      /w\.yaml:7:9: duplicate step id "look"/,
    ],
    [
      "a missing prompt",
      GOOD.replace(/ {4}prompt: "Look.*\n/, ""),
      /w\.yaml:4:5: steps\.0\.prompt:/,
    ],
    [
      "a step that is not a map",
      GOOD.replace("  - id: ok\n", "  - just text\n  - id: ok\n"),
      /^WORKFLOW_INVALID w\.yaml:7:5: steps\.1: Invalid input: expected object, received string/,
    ],
    ["an empty file", "", /^WORKFLOW_INVALID w\.yaml:1:1: the file is empty/],
  ])("%s is refused naming the place", (_what, text, expected) => {
    expect(refusal(text)).toMatch(expected);
  });

  it("templates fill from the run's scope", () => {
    const steps = new Map([["a", { output: "out", status: "completed" }]]);
    expect(
      render(
        "{{input}}/{{ steps.a.output }}/{{ steps.a.status }}/{{ steps.b.status }}/{{ env.X }}",
        {
          input: "in",
          steps,
          env: { X: "x" },
        },
      ),
    ).toBe("in/out/completed/pending/x");
  });

  it("a project workflow wins over the home one of the same name", () => {
    const cwd = tempDir();
    const home = tempDir();
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    const flow = (desc: string) =>
      `name: fix\ndescription: ${desc}\nsteps:\n  - { id: a, run: "true" }\n`;
    writeFileSync(
      join(cwd, ".acphub", "workflows", "fix.yaml"),
      flow("project"),
    );
    writeFileSync(join(home, "fix.yaml"), flow("home"));
    writeFileSync(join(home, "other.yml"), flow("x").replace("fix", "other"));
    const dirs = { cwd, homeDir: home };
    expect(listWorkflows(dirs).map((e) => [e.name, e.source])).toEqual([
      ["fix", "project"],
      ["other", "home"],
    ]);
    expect(findWorkflow("fix", dirs, options).spec.description).toBe("project");
    expect(() => findWorkflow("gone", dirs, options)).toThrow(
      /no workflow "gone"/,
    );
  });
});
