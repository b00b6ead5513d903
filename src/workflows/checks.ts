// The checks a schema cannot make: unique step ids, loop targets and bounds, template
// references, data kept out of `run:` command text, and agent names. Each problem names its
// place in the file.
import type { Locate, LoadOptions } from "./load.js";
import { stepKind, type WorkflowSpec, type WorkflowStep } from "./schema.js";
import { shellFilterProblems } from "./shell-quote.js";
import {
  checkTemplate,
  parseRef,
  stepVariable,
  TEMPLATE_PATTERN,
  variableOf,
  type RefContext,
} from "./templates.js";

type Path = (string | number)[];

// The templates a step carries, with where each sits.
function templatesOf(step: WorkflowStep, at: Path): [string, Path][] {
  if ("approve" in step) return [[step.approve, [...at, "approve"]]];
  if ("run" in step) return [[step.run, [...at, "run"]]];
  if ("parallel" in step)
    return step.parallel.map((b, i) => [
      b.prompt,
      [...at, "parallel", i, "prompt"],
    ]);
  return [[step.prompt, [...at, "prompt"]]];
}

function agentsOf(step: WorkflowStep, at: Path): [string, Path][] {
  if ("parallel" in step)
    return step.parallel.map((b, i) => [
      b.agent,
      [...at, "parallel", i, "agent"],
    ]);
  return stepKind(step) === "agent"
    ? [[(step as { agent: string }).agent, [...at, "agent"]]]
    : [];
}

// A `run:` text's templates: data never becomes command text, so each must either be replaced
// by its variable or quoted as one word by `| shell` where that is a plain word of shell code.
function runProblems(run: string, refs: RefContext): string[] {
  const problems: string[] = [];
  const spans: { start: number; end: number }[] = [];
  for (const match of run.matchAll(TEMPLATE_PATTERN)) {
    const ref = parseRef(match[1]!, refs);
    if (typeof ref === "string") continue;
    if (ref.shell) {
      spans.push({ start: match.index, end: match.index + match[0].length });
      continue;
    }
    problems.push(
      `run: ${match[0]} would paste data into the command text: use "$${variableOf(ref)}" instead (every run step gets the template values as variables), or {{ ${match[1]!.trim()} | shell }} as one quoted word`,
    );
  }
  for (const why of shellFilterProblems(run, spans))
    problems.push(
      `run: ${why}; the shell filter quotes a plain word only: use the variable ("$ACPHUB_…") there instead`,
    );
  return problems;
}

// Step ids whose variables would be the same (`a-b` and `a_b`, `Build` and `build`).
function variableClashes(spec: WorkflowSpec): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const { id } of spec.steps) {
    const name = stepVariable(id, "output");
    const other = seen.get(name);
    if (other !== undefined)
      problems.push(
        `steps "${other}" and "${id}" would share the variable ${name}: rename one`,
      );
    seen.set(name, id);
  }
  return problems;
}

// The problems of one run step: its templates, and a pre-approval of a command holding data.
function runStepProblems(
  step: WorkflowStep,
  at: Path,
  refs: RefContext,
  locate: Locate,
): string[] {
  if (!("run" in step)) return [];
  const where = locate([...at, "run"]);
  const problems = runProblems(step.run, refs).map((p) => `${where}: ${p}`);
  if (step.preapproved && step.run.match(TEMPLATE_PATTERN))
    problems.push(
      `${locate(at, "preapproved")}: preapproved applies to literal commands only; this run interpolates data: use the variables instead, or drop preapproved`,
    );
  return problems;
}

// Every problem in the workflow, as `file:line:col: message` lines.
export function checkSemantics(
  spec: WorkflowSpec,
  options: LoadOptions,
  locate: Locate,
): string[] {
  const problems: string[] = [];
  const ids = new Map<string, number>();
  spec.steps.forEach((step, i) => {
    if (ids.has(step.id))
      problems.push(
        `${locate(["steps", i, "id"])}: duplicate step id "${step.id}"`,
      );
    ids.set(step.id, i);
  });
  const refs: RefContext = {
    stepIds: new Set(ids.keys()),
    envAllowed: options.envAllowed,
  };
  if (spec.steps.some((step) => "run" in step))
    for (const p of variableClashes(spec))
      problems.push(`${locate(["steps"])}: ${p}`);
  spec.steps.forEach((step, i) => {
    const at: Path = ["steps", i];
    for (const [text, where] of templatesOf(step, at))
      for (const p of checkTemplate(text, refs))
        problems.push(`${locate(where)}: ${p}`);
    problems.push(...runStepProblems(step, at, refs, locate));
    for (const [name, where] of agentsOf(step, at))
      if (!options.knownAgent(name))
        problems.push(
          `${locate(where)}: unknown agent "${name}" (see acphub agents list)`,
        );
    const jump = "onFailure" in step ? step.onFailure : undefined;
    if (!jump) return;
    const target = ids.get(jump.goto);
    if (target === undefined)
      problems.push(
        `${locate([...at, "onFailure", "goto"])}: onFailure.goto names no step: "${jump.goto}"`,
      );
    else if (target <= i && jump.maxAttempts === undefined)
      problems.push(
        `${locate([...at, "onFailure"])}: onFailure.goto "${jump.goto}" makes a cycle without a bound: set maxAttempts`,
      );
  });
  return problems;
}
