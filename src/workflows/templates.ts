// `{{ … }}` templates in prompts, gate texts and commands: `input`, `steps.<id>.output`,
// `steps.<id>.status` and `env.NAME`, each optionally through the `shell` filter
// (`{{ input | shell }}`: one shell word). References are checked when the file is loaded, so an
// unknown one is an error there, never an empty string at run time. A `run:` step gets the same
// values as environment variables (runEnv), so its command text is only what the file says.
import { shellQuote } from "./shell-quote.js";

import { didYouMean } from "../shared/did-you-mean.js";

export const TEMPLATE_PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TemplateRef = (
  | { kind: "input" }
  | { kind: "step"; step: string; field: "output" | "status" }
  | { kind: "env"; name: string }
) & { shell?: boolean };

export interface TemplateScope {
  input: string;
  steps: ReadonlyMap<string, { output: string; status: string }>;
  env: Record<string, string>;
}

export interface RefContext {
  stepIds: ReadonlySet<string>;
  envAllowed: (name: string) => boolean;
}

// Parses one reference's text (`what`, or `what | shell`); says why it is not valid instead of
// throwing.
export function parseRef(text: string, ctx: RefContext): TemplateRef | string {
  const [what = "", ...filters] = text.split("|").map((p) => p.trim());
  const unknown = filters.find((f) => f !== "shell");
  if (unknown !== undefined)
    return `unknown filter "${unknown}" in {{ ${text} }} (known: shell)`;
  if (filters.length > 1) return `{{ ${text} }}: one shell filter is enough`;
  const ref = parseValue(what, ctx);
  if (typeof ref === "string") return ref;
  return filters.length ? { ...ref, shell: true } : ref;
}

// The value a reference names, without its filter.
function parseValue(text: string, ctx: RefContext): TemplateRef | string {
  if (text === "input") return { kind: "input" };
  const step = /^steps\.([A-Za-z][\w-]*)\.(output|status)$/.exec(text);
  if (step) {
    const id = step[1]!;
    if (!ctx.stepIds.has(id))
      return `unknown step "${id}" in {{ ${text} }}${didYouMean(id, [...ctx.stepIds])}`;
    return { kind: "step", step: id, field: step[2] as "output" | "status" };
  }
  const env = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(text);
  if (env) {
    const name = env[1]!;
    if (!ctx.envAllowed(name))
      return `{{ ${text} }}: ${name} is not on the env allowlist (config env.allow)`;
    return { kind: "env", name };
  }
  return `unknown template reference {{ ${text} }} (known: input, steps.<id>.output, steps.<id>.status, env.NAME)`;
}

/** Every problem in a template's references, in order. */
export function checkTemplate(template: string, ctx: RefContext): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(TEMPLATE_PATTERN)) {
    const ref = parseRef(match[1]!, ctx);
    if (typeof ref === "string") problems.push(ref);
  }
  return problems;
}

// One reference's value from the run's scope (the reference was checked at load).
function valueOf(what: string, scope: TemplateScope): string {
  if (what === "input") return scope.input;
  const [head, name, field] = what.split(".");
  if (head === "env") return scope.env[name ?? ""] ?? "";
  const step = scope.steps.get(name ?? "");
  if (field === "status") return step?.status ?? "pending";
  return step?.output ?? "";
}

// Fills a checked template from the run's scope; `| shell` quotes the value as one word.
export function render(template: string, scope: TemplateScope): string {
  return template.replace(TEMPLATE_PATTERN, (_all, text: string) => {
    const [what = "", filter] = text.split("|").map((p) => p.trim());
    const value = valueOf(what, scope);
    return filter === "shell" ? shellQuote(value) : value;
  });
}

/** The longest value a `run:` step gets in one variable, in characters (its end is kept). */
export const MAX_VARIABLE_CHARS = 64 * 1024;

/** The variable a step's output or status reaches `run:` steps in: ACPHUB_STEP_<ID>_OUTPUT. */
export function stepVariable(step: string, field: "output" | "status") {
  return `ACPHUB_STEP_${step.toUpperCase().replaceAll("-", "_")}_${field.toUpperCase()}`;
}

/** The variable a reference's value reaches `run:` steps in. */
export function variableOf(ref: TemplateRef): string {
  if (ref.kind === "input") return "ACPHUB_INPUT";
  if (ref.kind === "env") return `ACPHUB_ENV_${ref.name}`;
  return stepVariable(ref.step, ref.field);
}

// A value as an environment variable can carry it: no NUL bytes, the tail of a long one.
function envValue(value: string): string {
  const clean = value.includes("\0") ? value.replaceAll("\0", "") : value;
  return clean.length > MAX_VARIABLE_CHARS
    ? clean.slice(-MAX_VARIABLE_CHARS)
    : clean;
}

/**
 * The environment a `run:` step gets: ACPHUB_INPUT, ACPHUB_STEP_<ID>_OUTPUT and _STATUS for
 * every step of the workflow (empty and "pending" before it ran), ACPHUB_ENV_<NAME> for every
 * variable `{{ env.NAME }}` may read.
 */
export function runEnv(
  scope: TemplateScope,
  stepIds: readonly string[],
): { name: string; value: string }[] {
  const vars = [{ name: "ACPHUB_INPUT", value: scope.input }];
  for (const id of stepIds) {
    const step = scope.steps.get(id);
    vars.push({ name: stepVariable(id, "output"), value: step?.output ?? "" });
    vars.push({
      name: stepVariable(id, "status"),
      value: step?.status ?? "pending",
    });
  }
  for (const [name, value] of Object.entries(scope.env))
    vars.push({ name: `ACPHUB_ENV_${name}`, value });
  return vars.map((v) => ({ name: v.name, value: envValue(v.value) }));
}
