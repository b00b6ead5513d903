// A compact coloured diff of a `diff` tool-call content block (old text → new text).
import type { Style } from "./ansi.js";

const MAX_LINES = 40;

// Lines common to both ends are trimmed; the changed middle is shown as - and + lines.
export function renderDiff(
  path: string,
  oldText: string | null | undefined,
  newText: string,
  style: Style,
): string[] {
  const before = (oldText ?? "").split("\n");
  const after = newText.split("\n");
  let start = 0;
  while (
    start < before.length &&
    start < after.length &&
    before[start] === after[start]
  )
    start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (
    endBefore > start &&
    endAfter > start &&
    before[endBefore - 1] === after[endAfter - 1]
  ) {
    endBefore--;
    endAfter--;
  }
  const lines = [
    style.bold(`${oldText == null ? "new file" : "diff"} ${path}`),
    style.cyan(`@@ line ${start + 1} @@`),
  ];
  for (const l of before.slice(start, endBefore))
    lines.push(style.red(`- ${l}`));
  for (const l of after.slice(start, endAfter))
    lines.push(style.green(`+ ${l}`));
  if (lines.length > MAX_LINES)
    return [
      ...lines.slice(0, MAX_LINES),
      style.dim(`… ${lines.length - MAX_LINES} more lines`),
    ];
  return lines;
}
