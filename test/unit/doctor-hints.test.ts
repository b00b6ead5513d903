// The causes `agents doctor` recognises in what an agent said.
import { describe, expect, it } from "vitest";
import { doctorHints } from "../../src/cli/doctor-hints.js";

describe("doctorHints", () => {
  it.each([
    ["Invalid API key · Please run /login", /not logged in/],
    ["Error: 401 Unauthorized", /not logged in/],
    [
      "npm WARN EBADENGINE Unsupported engine { required: { node: '>=22' } }",
      /newer Node\.js/,
    ],
    ["SyntaxError: Invalid regular expression flags", /newer Node\.js/],
    ["sh: 1: claude: command not found", /a program it needs is missing/],
    ["Error: Cannot find module '@anthropic-ai/claude-code'", /missing/],
  ])("%s", (said, hint) => {
    const hints = doctorHints("claude", said);
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(hint);
  });

  it("says nothing when nothing fits", () => {
    expect(doctorHints("claude", "the model is busy")).toEqual([]);
  });
});
