// `{{ … }}` templates in prompts, gate texts and commands: `input`, `steps.<id>.output`,
// `steps.<id>.status` and `env.NAME`. References are checked when the file is loaded, so an
// unknown one is an error there, never an empty string at run time.

import { didYouMean } from "../shared/did-you-mean.js";

const PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TemplateRef =
  | { kind: "input" }
  | { kind: "step"; step: string; field: "output" | "status" }
  | { kind: "env"; name: string };

export interface TemplateScope {
  input: string;
  steps: ReadonlyMap<string, { output: string; status: string }>;
  env: Record<string, string>;
}

export interface RefContext {
  stepIds: ReadonlySet<string>;
  envAllowed: (name: string) => boolean;
}

// Parses one reference's text; returns why it is not valid instead of throwing.
export function parseRef(text: string, ctx: RefContext): TemplateRef | string {
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
  for (const match of template.matchAll(PATTERN)) {
    const ref = parseRef(match[1]!, ctx);
    if (typeof ref === "string") problems.push(ref);
  }
  return problems;
}

// Fills a checked template from the run's scope.
export function render(template: string, scope: TemplateScope): string {
  return template.replace(PATTERN, (_all, text: string) => {
    if (text === "input") return scope.input;
    const [head, name, field] = text.split(".");
    if (head === "env") return scope.env[name ?? ""] ?? "";
    const step = scope.steps.get(name ?? "");
    if (field === "status") return step?.status ?? "pending";
    return step?.output ?? "";
  });
}
