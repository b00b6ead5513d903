// Workflow values never become shell text: a `run:` that pastes a template into its command is
// refused at load with its place and the fix; the `shell` filter is accepted only where its
// quotes are quoting; the variables a run step gets are named from the step ids.
import { describe, expect, it } from "vitest";
import { parseWorkflow } from "../../src/workflows/load.js";
import { shellFilterProblems } from "../../src/workflows/shell-quote.js";
import {
  runEnv,
  TEMPLATE_PATTERN,
  type TemplateScope,
} from "../../src/workflows/templates.js";

const options = {
  knownAgent: (n: string) => n === "mock",
  envAllowed: (n: string) => n === "HOME",
};

// What parseWorkflow says of a workflow with an agent step `s` and then this run step.
function verdict(run: string, extra = ""): string {
  const text = `name: w\nsteps:\n  - { id: s, agent: mock, prompt: hi }\n  - id: t\n    run: ${JSON.stringify(run)}\n${extra}`;
  try {
    parseWorkflow(text, "w.yaml", options);
    return "accepted";
  } catch (error) {
    return (error as Error).message;
  }
}

// The problems the filter's places have in a run text.
function places(run: string): string[] {
  const spans = [...run.matchAll(TEMPLATE_PATTERN)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  return shellFilterProblems(run, spans);
}

describe("templates in run: steps", () => {
  it("refuses the issue's reproduction with the line and the variable to use", () => {
    expect(verdict('echo "agent said {{ steps.s.output }}"')).toBe(
      'w.yaml:5:10: run: {{ steps.s.output }} would paste data into the command text: use "$ACPHUB_STEP_S_OUTPUT" instead (every run step gets the template values as variables), or {{ steps.s.output | shell }} as one quoted word',
    );
    expect(verdict("cat {{ input }}")).toMatch(/use "\$ACPHUB_INPUT"/);
    expect(verdict("cd {{ env.HOME }}")).toMatch(/use "\$ACPHUB_ENV_HOME"/);
    expect(verdict("test {{ steps.s.status }} = completed")).toMatch(
      /use "\$ACPHUB_STEP_S_STATUS"/,
    );
  });

  it("accepts the variables, and the shell filter as a plain word", () => {
    expect(verdict('echo "agent said $ACPHUB_STEP_S_OUTPUT"')).toBe("accepted");
    expect(verdict("echo agent said {{ steps.s.output | shell }}")).toBe(
      "accepted",
    );
    expect(verdict("x=$(printf %s {{input|shell}}) # don't")).toBe("accepted");
  });

  it("refuses the shell filter where its quotes are not quoting", () => {
    for (const [run, why] of [
      ['echo "{{ input | shell }}"', "inside double quotes"],
      ["echo '{{ input | shell }}'", "inside single quotes"],
      ["echo `cat {{ input | shell }}`", "inside backticks"],
      ["echo ${X:-{{ input | shell }}}", "inside ${…}"],
      ["echo \\{{ input | shell }}", "after a backslash"],
      ["echo ${{ input | shell }}", "right after $"],
      ["cat <<EOF\n{{ input | shell }}\nEOF", "here-doc"],
      ["echo $(( {{ input | shell }} ))", "arithmetic"],
    ] as const)
      expect(places(run).join("; "), run).toContain(why);
    expect(verdict('echo "{{ input | shell }}"')).toMatch(
      /w\.yaml:5:10: run: \{\{ input \| shell \}\} inside double quotes; .*use the variable/,
    );
  });

  it("refuses unknown filters, and pre-approving a command that holds data", () => {
    expect(verdict("echo {{ input | upper }}")).toMatch(
      /unknown filter "upper"/,
    );
    expect(
      verdict("echo {{ input | shell }}", "    preapproved: true\n"),
    ).toMatch(/w\.yaml:6:5: preapproved applies to literal commands only/);
    expect(verdict("echo $ACPHUB_INPUT", "    preapproved: true\n")).toBe(
      "accepted",
    );
  });

  it("refuses step ids whose variables would be the same", () => {
    const text = `name: w\nsteps:\n  - { id: a-b, run: "true" }\n  - { id: a_b, run: "true" }\n`;
    expect(() => parseWorkflow(text, "w.yaml", options)).toThrow(
      /steps "a-b" and "a_b" would share the variable ACPHUB_STEP_A_B_OUTPUT/,
    );
  });

  it("gives a run step every value as a variable, NULs dropped", () => {
    const scope: TemplateScope = {
      input: "in",
      steps: new Map([["look-1", { output: "a\0b", status: "completed" }]]),
      env: { HOME: "/h" },
    };
    expect(runEnv(scope, ["look-1", "later"])).toEqual([
      { name: "ACPHUB_INPUT", value: "in" },
      { name: "ACPHUB_STEP_LOOK_1_OUTPUT", value: "ab" },
      { name: "ACPHUB_STEP_LOOK_1_STATUS", value: "completed" },
      { name: "ACPHUB_STEP_LATER_OUTPUT", value: "" },
      { name: "ACPHUB_STEP_LATER_STATUS", value: "pending" },
      { name: "ACPHUB_ENV_HOME", value: "/h" },
    ]);
  });
});
