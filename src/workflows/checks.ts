// The checks a schema cannot make: unique step ids, loop targets and bounds, template
// references and agent names. Each problem names its place in the file.
import { stepKind, type WorkflowSpec, type WorkflowStep } from "./schema.js";
import { checkTemplate, type RefContext } from "./templates.js";

export interface LoadOptions {
  /** True when an agent name can be started (configured or in the registry). */
  knownAgent: (name: string) => boolean;
  /** True when `{{ env.NAME }}` may read NAME. */
  envAllowed: (name: string) => boolean;
}

/** Where a path points in the file, as `file:line:column`. */
export type Locate = (path: Path, key?: string) => string;

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
  spec.steps.forEach((step, i) => {
    const at: Path = ["steps", i];
    for (const [text, where] of templatesOf(step, at))
      for (const p of checkTemplate(text, refs))
        problems.push(`${locate(where)}: ${p}`);
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
