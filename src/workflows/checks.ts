// The checks a schema cannot make: unique step ids, loop targets and bounds, template
// references, data kept out of `run:` command text, and agent names. Each problem names its place in the file. They read the steps
// as written, so a step that also failed the schema still has these checked (every problem of
// a file is reported at once).
import { didYouMean } from "../shared/did-you-mean.js";
import type { Locate, LoadOptions } from "./schema.js";
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
type Raw = Record<string, unknown>;

const asRaw = (value: unknown): Raw =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Raw)
    : {};
const text = (value: unknown): value is string => typeof value === "string";

// The templates a step carries, with where each sits.
function templatesOf(step: Raw, at: Path): [string, Path][] {
  const found: [string, Path][] = [];
  for (const key of ["approve", "run", "prompt"])
    if (text(step[key])) found.push([step[key], [...at, key]]);
  branchesOf(step).forEach((b, i) => {
    if (text(b["prompt"]))
      found.push([b["prompt"], [...at, "parallel", i, "prompt"]]);
  });
  return found;
}

function branchesOf(step: Raw): Raw[] {
  return Array.isArray(step["parallel"]) ? step["parallel"].map(asRaw) : [];
}

function agentsOf(step: Raw, at: Path): [string, Path][] {
  const found: [string, Path][] = [];
  if (text(step["agent"])) found.push([step["agent"], [...at, "agent"]]);
  branchesOf(step).forEach((b, i) => {
    if (text(b["agent"]))
      found.push([b["agent"], [...at, "parallel", i, "agent"]]);
  });
  return found;
}

// The step ids of the file and the first place of each; the places of the repeats.
function stepIds(steps: Raw[]): {
  ids: Map<string, number>;
  duplicates: [string, number][];
} {
  const ids = new Map<string, number>();
  const duplicates: [string, number][] = [];
  steps.forEach((step, i) => {
    const id = step["id"];
    if (!text(id)) return;
    if (ids.has(id)) duplicates.push([id, i]);
    else ids.set(id, i);
  });
  return { ids, duplicates };
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
function variableClashes(ids: Iterable<string>): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const id of ids) {
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
  step: Raw,
  at: Path,
  refs: RefContext,
  locate: Locate,
): string[] {
  const run = step["run"];
  if (!text(run)) return [];
  const where = locate([...at, "run"]);
  const problems = runProblems(run, refs).map((p) => `${where}: ${p}`);
  if (step["preapproved"] === true && run.match(TEMPLATE_PATTERN))
    problems.push(
      `${locate(at, "preapproved")}: preapproved applies to literal commands only; this run interpolates data: use the variables instead, or drop preapproved`,
    );
  return problems;
}

// Every problem of the steps as written, as `file:line:col: message` lines.
export function checkSemantics(
  raw: readonly unknown[],
  options: LoadOptions,
  locate: Locate,
): string[] {
  const steps = raw.map(asRaw);
  const { ids, duplicates } = stepIds(steps);
  const problems = duplicates.map(
    ([id, i]) => `${locate(["steps", i, "id"])}: duplicate step id "${id}"`,
  );
  const refs: RefContext = {
    stepIds: new Set(ids.keys()),
    envAllowed: options.envAllowed,
  };
  const agents = options.agentNames?.() ?? [];
  if (steps.some((step) => "run" in step))
    for (const p of variableClashes(ids.keys()))
      problems.push(`${locate(["steps"])}: ${p}`);
  steps.forEach((step, i) => {
    const at: Path = ["steps", i];
    for (const [template, where] of templatesOf(step, at))
      for (const p of checkTemplate(template, refs))
        problems.push(`${locate(where)}: ${p}`);
    problems.push(...runStepProblems(step, at, refs, locate));
    for (const [name, where] of agentsOf(step, at))
      if (!options.knownAgent(name))
        problems.push(
          `${locate(where)}: unknown agent "${name}"${didYouMean(name, agents)} (see acphub agents list)`,
        );
    problems.push(...jumpProblems(step, at, ids, locate));
  });
  return problems;
}

// A failure jump must name a step, and a jump back needs a bound.
function jumpProblems(
  step: Raw,
  at: Path,
  ids: ReadonlyMap<string, number>,
  locate: Locate,
): string[] {
  const jump = asRaw(step["onFailure"]);
  if (!text(jump["goto"])) return [];
  const target = ids.get(jump["goto"]);
  if (target === undefined)
    return [
      `${locate([...at, "onFailure", "goto"])}: onFailure.goto names no step: "${jump["goto"]}"${didYouMean(jump["goto"], [...ids.keys()])}`,
    ];
  if (target <= Number(at[1]) && jump["maxAttempts"] === undefined)
    return [
      `${locate([...at, "onFailure"])}: onFailure.goto "${jump["goto"]}" makes a cycle without a bound: set maxAttempts`,
    ];
  return [];
}
