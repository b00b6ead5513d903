// The causes `agents doctor` recognises in what an agent said.
import { describe, expect, it } from "vitest";
import { doctorHints } from "../../src/app/doctor-hints.js";

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
    const hints = doctorHints({ agent: "my-agent", said, env: {} });
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(hint);
  });

  it("a built-in agent gets its own hints: claude as root, claude with no key or login", () => {
    const home = "/nonexistent-home";
    const said = "Claude Code process exited with code 1";
    const asRoot = doctorHints({
      agent: "claude",
      said,
      env: {},
      uid: 0,
      home,
    });
    expect(asRoot[0]).toMatch(/refuses to run as root unless IS_SANDBOX=1/);
    expect(asRoot[1]).toMatch(/no ANTHROPIC_API_KEY/);
    const fine = doctorHints({
      agent: "mine",
      command: "/usr/bin/claude-agent-acp",
      said,
      env: { IS_SANDBOX: "1", ANTHROPIC_API_KEY: "k" },
      uid: 0,
      home,
    });
    expect(fine).toEqual([]);
    const codex = doctorHints({ agent: "codex", said: "", env: {}, home });
    expect(codex).toEqual([expect.stringMatching(/codex login/)]);
  });

  it("says nothing when nothing fits", () => {
    expect(
      doctorHints({ agent: "my-agent", said: "the model is busy", env: {} }),
    ).toEqual([]);
  });
});
