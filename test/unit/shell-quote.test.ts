// The `shell` template filter, proved against the real `sh` and `bash`: for random text with
// quotes, $, backticks, backslashes, newlines and any NUL-free byte, the quoted word the
// filter makes, in a run text rendered by the workflow runner, reads back as exactly that text
// and runs nothing. Fixed seed and bounded runs, so a failure is reproducible.
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../../src/workflows/shell-quote.js";
import { render } from "../../src/workflows/templates.js";

const SHELLS = ["sh", "bash"] as const;
const RUNS = 100;
const SEED = 20_2026;

// Runs a script (its bytes, on stdin) in a shell; what it printed.
function run(shell: string, script: Buffer): Buffer {
  const r = spawnSync(shell, ["-s"], { input: script, timeout: 10_000 });
  if (r.status !== 0)
    throw new Error(`${shell} exited ${r.status}: ${String(r.stderr)}`);
  return r.stdout;
}

// Text made of the characters shells treat specially, and a few ordinary ones.
const tricky = fc.string({
  unit: fc.constantFrom(
    ...[..."'\"$`\\\n\t !;&|(){}[]*?~#<>=%^,.-_aZ09é漢🙂"],
    "$(touch PWNED)",
    "`touch PWNED`",
    "'\\''",
    "${IFS}",
    "\r\n",
  ),
  maxLength: 40,
});

// Any bytes but NUL, as the latin1 string the quoting sees (one character per byte).
const bytes = fc
  .uint8Array({ minLength: 0, maxLength: 64 })
  .map((a) => Buffer.from(a.filter((b) => b !== 0)));

describe("the shell filter against sh and bash", () => {
  it.each(SHELLS)(
    "%s: a rendered run prints any tricky text back exactly",
    (shell) => {
      fc.assert(
        fc.property(tricky, (text) => {
          const script = render("printf '%s' {{ input | shell }}", {
            input: text,
            steps: new Map(),
            env: {},
          });
          expect(run(shell, Buffer.from(script)).toString()).toBe(text);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    },
  );

  it.each(SHELLS)("%s: any NUL-free bytes come back byte for byte", (shell) => {
    fc.assert(
      fc.property(bytes, (data) => {
        const word = shellQuote(data.toString("latin1"));
        const script = Buffer.from(`printf '%s' ${word}`, "latin1");
        expect(run(shell, script).equals(data)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
