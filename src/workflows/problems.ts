// A workflow file's schema errors as lines people can act on: each at file:line:column, an
// unknown key with the key it probably meant, and no "required" noise for that meant key.
import type { z } from "zod";
import { closest } from "../shared/did-you-mean.js";
import type { Locate } from "./schema.js";

type Path = (string | number)[];

/** Where the issues of one object come from: its path in the file, its value, its keys. */
export interface IssueScope {
  base: Path;
  value: unknown;
  /** The keys allowed at a path inside the value. */
  keysAt: (path: Path) => readonly string[];
}

// The value at `path` inside `value`, undefined when the path leads nowhere.
function valueAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const step of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

const pathOf = (issue: z.core.$ZodIssue): Path =>
  issue.path.map((p) => (typeof p === "number" ? p : String(p)));

// One line per zod issue (one per unknown key), in the order zod found them.
export function schemaProblems(
  error: z.ZodError,
  scope: IssueScope,
  locate: Locate,
): string[] {
  const meant = new Set<string>();
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code !== "unrecognized_keys") continue;
    const path = pathOf(issue);
    const where = [...scope.base, ...path];
    for (const key of issue.keys) {
      const guess = closest(key, scope.keysAt(path));
      if (guess !== undefined) meant.add([...path, guess].join("."));
      const hint = guess === undefined ? "" : ` (did you mean "${guess}"?)`;
      lines.push(
        `${locate(where, key)}: unknown key ${[...where, key].join(".")}${hint}`,
      );
    }
  }
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") continue;
    const path = pathOf(issue);
    // `aprove:` already said "did you mean approve?": approve being missing adds nothing.
    const missing = valueAt(scope.value, path) === undefined;
    if (missing && meant.has(path.join("."))) continue;
    const where = [...scope.base, ...path];
    lines.push(
      `${locate(where)}: ${where.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  return lines;
}
