// What `agents doctor` suggests after a failure: the usual causes, recognised in what the agent
// said (its error, its data, its stderr), in plain words with the next step.

interface Cause {
  pattern: RegExp;
  hint: (agent: string) => string;
}

const CAUSES: Cause[] = [
  {
    pattern:
      /not (logged|signed) in|please (run \/)?log ?in|\blogin\b|authenticat|unauthori[sz]ed|\b401\b|invalid api[ _-]?key|api[ _-]?key (is )?(missing|not set|required)|credentials?/i,
    hint: (agent) =>
      `it looks like ${agent} is not logged in: log in with the agent's own command (for example \`claude /login\`, \`codex login\`, or start \`gemini\` once), or give it its API key (see the agents table in docs/cli.md).`,
  },
  {
    pattern:
      /unsupported engine|requires? node(\.js)?( version)? ?(>=|v|\d)|node(\.js)? (>=|v)?\d+(\.\d+)* (or (newer|higher|later)|is required)|ERR_UNKNOWN_BUILTIN_MODULE|ERR_REQUIRE_ESM|node:sqlite|SyntaxError: (Unexpected token|Invalid regular expression)/i,
    hint: () =>
      `it seems to need a newer Node.js than this one (${process.version}): install a current Node (22 or later) for the agent, or point its command at one in the config file.`,
  },
  {
    pattern:
      /command not found|not found on PATH|\bENOENT\b|cannot find module|could not determine executable|is not installed|no such file or directory/i,
    hint: () =>
      "a program it needs is missing: install the agent (see `acphub agents list` for the package) and check that it runs on its own.",
  },
];

// The hints that fit what the agent said, one per line; empty when none fits.
export function doctorHints(agent: string, said: string): string[] {
  return CAUSES.filter((c) => c.pattern.test(said)).map((c) => c.hint(agent));
}
