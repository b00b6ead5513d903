// Reads a workflow file: YAML (kept with positions), the schema, then the checks the schema
// cannot make (step ids, loops, templates, agents). Every error names file:line:column.
import { readFileSync } from "node:fs";
import { isMap, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { HubError } from "../shared/errors.js";
import {
  stepSchemaFor,
  workflowSchema,
  type WorkflowSpec,
  type WorkflowStep,
} from "./schema.js";
import { checkSemantics, type Locate, type LoadOptions } from "./checks.js";

export type { LoadOptions } from "./checks.js";

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

function invalid(message: string, file: string): HubError {
  return new HubError("WORKFLOW_INVALID", message, { details: { file } });
}

// Turns zod issues into `file:line:col: key: message` lines.
function describe(error: z.ZodError, base: Path, locate: Locate): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = [
        ...base,
        ...issue.path.map((p) => (typeof p === "number" ? p : String(p))),
      ];
      const name = path.join(".") || "(root)";
      if (issue.code === "unrecognized_keys") {
        const key = issue.keys[0]!;
        return `${locate(path, key)}: unknown key ${path.length ? `${name}.` : ""}${issue.keys.join(", ")}`;
      }
      return `${locate(path)}: ${name}: ${issue.message}`;
    })
    .join("\n");
}

// Parses and checks a workflow from text; exported for `flow validate` and tests.
export function parseWorkflow(
  text: string,
  file: string,
  options: LoadOptions,
): Workflow {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const locate = locator(doc, lines, file);
  const yamlError = doc.errors[0];
  if (yamlError) {
    const { line, col } = lines.linePos(yamlError.pos[0]);
    throw invalid(
      `${file}:${line}:${col}: invalid YAML: ${yamlError.message.split("\n")[0]}`,
      file,
    );
  }
  const raw: unknown = doc.toJS();
  const top = workflowSchema.safeParse(raw);
  if (!top.success) throw invalid(describe(top.error, [], locate), file);
  const steps: WorkflowStep[] = top.data.steps.map((value, index) => {
    const parsed = stepSchemaFor(value).safeParse(value);
    if (!parsed.success)
      throw invalid(describe(parsed.error, ["steps", index], locate), file);
    return parsed.data;
  });
  const spec: WorkflowSpec = { ...top.data, steps };
  const problems = checkSemantics(spec, options, locate);
  if (problems.length) throw invalid(problems.join("\n"), file);
  return { spec, file };
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
