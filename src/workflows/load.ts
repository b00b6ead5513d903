// Reads a workflow file: YAML (kept with positions), the schema, then the checks the schema
// cannot make (step ids, loops, templates, agents). Every error names file:line:column.
import { readFileSync } from "node:fs";
import { isMap, LineCounter, parseDocument, type Document } from "yaml";
import { HubError } from "../shared/errors.js";
import { keysAt as keysOf } from "../shared/schema-keys.js";
import {
  STEP_KEYS,
  stepSchemaFor,
  workflowSchema,
  type WorkflowSpec,
  type WorkflowStep,
} from "./schema.js";
import { checkSemantics } from "./checks.js";
import { schemaProblems } from "./problems.js";
import type { Locate, LoadOptions } from "./schema.js";

export type { Locate, LoadOptions } from "./schema.js";

export interface Workflow {
  spec: WorkflowSpec;
  file: string;
}

type Path = (string | number)[];

// Builds the locator over a parsed document: the deepest node the path reaches.
function locator(doc: Document, lines: LineCounter, file: string): Locate {
  return (path, key) => {
    let at = path;
    let node = doc.getIn(at, true) as
      { range?: [number, number, number] } | undefined;
    while (!node?.range && at.length > 0) {
      at = at.slice(0, -1);
      node = at.length
        ? (doc.getIn(at, true) as typeof node)
        : (doc.contents as typeof node);
    }
    let offset = node?.range?.[0] ?? 0;
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find(
        (p) => String((p.key as { value?: unknown })?.value) === key,
      );
      const k = pair?.key as { range?: [number, number, number] } | undefined;
      if (k?.range) offset = k.range[0];
    }
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
}

/** One problem of a workflow file, where it is. */
export interface WorkflowProblem {
  line: number;
  column: number;
  message: string;
}

// The error for a file's problems: every one, in file order, each on its own line.
function invalid(lines: string[], file: string): HubError {
  const found = lines.map((text) => {
    const m = /^:(\d+):(\d+): ([^]*)$/.exec(text.slice(file.length));
    const p: WorkflowProblem = m
      ? { line: Number(m[1]), column: Number(m[2]), message: m[3]! }
      : { line: 0, column: 0, message: text };
    return { p, text };
  });
  found.sort((a, b) => a.p.line - b.p.line || a.p.column - b.p.column);
  const unique = found.filter(
    (f, i) => found.findIndex((g) => g.text === f.text) === i,
  );
  return new HubError(
    "WORKFLOW_INVALID",
    unique.map((f) => f.text).join("\n"),
    { details: { file, problems: unique.map((f) => f.p) } },
  );
}

// Every YAML syntax error, each at its place.
function yamlProblems(doc: Document, lines: LineCounter, file: string) {
  return doc.errors.map((e) => {
    const { line, col } = lines.linePos(e.pos[0]);
    return `${file}:${line}:${col}: invalid YAML: ${e.message.split("\n")[0]}`;
  });
}

// Checks each step against the schema of its kind; a step that fails is undefined.
function checkSteps(
  raw: unknown[],
  locate: Locate,
  problems: string[],
): (WorkflowStep | undefined)[] {
  return raw.map((value, index) => {
    const schema = stepSchemaFor(value);
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const keysAt = (path: Path) =>
      path.length ? keysOf(schema, path) : STEP_KEYS;
    const scope = { base: ["steps", index], value, keysAt };
    problems.push(...schemaProblems(parsed.error, scope, locate));
    return undefined;
  });
}

// Parses and checks a workflow from text; every problem of the file is in the one error.
export function parseWorkflow(
  text: string,
  file: string,
  options: LoadOptions,
): Workflow {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length) throw invalid(yamlProblems(doc, lines, file), file);
  const locate = locator(doc, lines, file);
  const raw: unknown = doc.toJS();
  if (raw === null || raw === undefined)
    throw invalid(
      [`${file}:1:1: the file is empty: a workflow needs name and steps`],
      file,
    );
  const problems: string[] = [];
  const top = workflowSchema.safeParse(raw);
  if (!top.success) {
    const scope = {
      base: [],
      value: raw,
      keysAt: (path: Path) => keysOf(workflowSchema, path),
    };
    problems.push(...schemaProblems(top.error, scope, locate));
  }
  const rawSteps = (raw as { steps?: unknown } | null)?.steps;
  const listed = Array.isArray(rawSteps) ? (rawSteps as unknown[]) : [];
  const steps = checkSteps(listed, locate, problems);
  problems.push(...checkSemantics(listed, options, locate));
  if (!top.success || problems.length) throw invalid(problems, file);
  return { spec: { ...top.data, steps: steps as WorkflowStep[] }, file };
}

export function loadWorkflowFile(file: string, options: LoadOptions): Workflow {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new HubError(
      "WORKFLOW_NOT_FOUND",
      `cannot read workflow file ${file}`,
      { cause: error },
    );
  }
  return parseWorkflow(text, file, options);
}
