// The well-known ACP agents. Package names and flags checked against the npm registry and the
// ACP registry's agent.json files (2026-11); `env` lists what each legitimately needs.

export interface BuiltinAgent {
  name: string;
  description: string;
  /** Installed executable and its arguments, tried first. */
  bin: { command: string; args: string[] };
  /** Fallback through `npx -y PACKAGE ARGS…`, when the agent ships on npm. */
  npx?: { package: string; args: string[] };
  /** How a person installs it, for error messages. */
  install: string;
  /** Variables from acphub's environment this agent may see (still subject to the deny list). */
  env: string[];
}

const providerKeys = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "OPENROUTER_API_KEY",
];

export const BUILTIN_AGENTS: readonly BuiltinAgent[] = [
  {
    name: "claude",
    description: "Claude Code through the ACP adapter",
    bin: { command: "claude-agent-acp", args: [] },
    npx: { package: "@agentclientprotocol/claude-agent-acp", args: [] },
    install: "npm install -g @agentclientprotocol/claude-agent-acp",
    env: [
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_BASE_URL",
      "ANTHROPIC_AUTH_TOKEN",
      "ANTHROPIC_MODEL",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "CLAUDE_CONFIG_DIR",
      "CLAUDE_CODE_USE_BEDROCK",
      "CLAUDE_CODE_USE_VERTEX",
      "IS_SANDBOX",
    ],
  },
  {
    name: "codex",
    description: "OpenAI Codex through the ACP adapter",
    bin: { command: "codex-acp", args: [] },
    npx: { package: "@agentclientprotocol/codex-acp", args: [] },
    install: "npm install -g @agentclientprotocol/codex-acp",
    env: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"],
  },
  {
    name: "gemini",
    description: "Gemini CLI in ACP mode",
    bin: { command: "gemini", args: ["--acp"] },
    npx: { package: "@google/gemini-cli", args: ["--acp"] },
    install: "npm install -g @google/gemini-cli",
    env: [
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "GOOGLE_CLOUD_PROJECT",
      "GOOGLE_CLOUD_LOCATION",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "GOOGLE_GENAI_USE_VERTEXAI",
    ],
  },
  {
    name: "opencode",
    description: "OpenCode in ACP mode",
    bin: { command: "opencode", args: ["acp"] },
    npx: { package: "opencode-ai", args: ["acp"] },
    install: "npm install -g opencode-ai",
    env: [...providerKeys, "OPENCODE_CONFIG"],
  },
  {
    name: "goose",
    description: "goose in ACP mode",
    bin: { command: "goose", args: ["acp"] },
    install:
      "install goose from https://block.github.io/goose/ (no npm package)",
    env: [...providerKeys, "GOOSE_PROVIDER", "GOOSE_MODEL"],
  },
  {
    name: "pi",
    description: "pi through pi-acp",
    bin: { command: "pi-acp", args: [] },
    npx: { package: "pi-acp", args: [] },
    install: "npm install -g pi-acp",
    env: [...providerKeys],
  },
  {
    name: "kiro",
    description: "Kiro CLI in ACP mode",
    bin: { command: "kiro-cli", args: ["acp"] },
    install: "install the Kiro CLI from https://kiro.dev (no npm package)",
    env: [],
  },
];
