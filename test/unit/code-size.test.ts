// The size rules of docs/architecture.md as a check: no source file over 350 lines (split a file
// that grows a second job), and cli/ within its budget (commands parse, ask app/, render; see
// docs/decisions/2026-12-03-cli-budget.md).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "..", "src");
const CLI_BUDGET = 3650;
const FILE_LIMIT = 350;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const lines = (file: string): number =>
  readFileSync(file, "utf8").split("\n").length - 1;

describe("code size", () => {
  it(`keeps every source file within ${FILE_LIMIT} lines`, () => {
    const over = sources(src)
      .map((file) => ({ file: relative(src, file), lines: lines(file) }))
      .filter((f) => f.lines > FILE_LIMIT);
    expect(over).toEqual([]);
  });

  it(`keeps cli/ within its ${CLI_BUDGET}-line budget`, () => {
    const total = sources(join(src, "cli"))
      .map(lines)
      .reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(CLI_BUDGET);
  });
});
