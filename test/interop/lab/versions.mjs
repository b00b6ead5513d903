// The real agents the interop lab runs, pinned by exact version. Moving an agent to a newer
// release is one line here (and a look at docs/agents.md for what changed).
export const AGENTS = {
  claude: {
    packages: ["@zed-industries/claude-code-acp@0.16.2"],
    bin: "claude-code-acp",
    api: "anthropic",
  },
  codex: {
    packages: ["@zed-industries/codex-acp@0.16.0"],
    bin: "codex-acp",
    api: "responses",
  },
  pi: {
    packages: ["pi-acp@0.0.24", "@mariozechner/pi-coding-agent@0.73.1"],
    bin: "pi-acp",
    api: "chat",
  },
};

/** @typedef {keyof typeof AGENTS} AgentName */
export const AGENT_NAMES = /** @type {AgentName[]} */ (Object.keys(AGENTS));
