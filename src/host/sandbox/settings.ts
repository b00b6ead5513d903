// What the OS sandbox lets a terminal or an agent do, as acphub's config states it: the mode,
// the credential locations nobody inside may read, and the network domains it may reach.

export type SandboxMode = "auto" | "os" | "off";

export interface SandboxSettings {
  /** `os`: sandbox or refuse; `auto`: sandbox when available, else warn and run; `off`. */
  mode: SandboxMode;
  /** Paths nothing inside may read; `~` is the user's home folder. */
  denyRead: readonly string[];
  /** Let the `.env*` files of the roots be read (denied by default). */
  allowEnvFiles: boolean;
  /** File names (`*` globs) nothing may read anywhere in the roots: keys and certificates. */
  denyNames: readonly string[];
  /** Domains (`*.example.com` allowed) a sandboxed terminal may reach; none by default. */
  allowedDomains: readonly string[];
  /** The bubblewrap program (default: `bwrap` on PATH). */
  bwrapPath?: string;
}

/** Credential locations denied by default (also acphub's own state and config, added by the wiring). */
// prettier-ignore
export const DEFAULT_DENY_READ: readonly string[] = [
  "~/.ssh", "~/.aws", "~/.config/gcloud", "~/.azure", "~/.kube", "~/.docker/config.json",
  "~/.netrc", "~/.npmrc", "~/.pypirc", "~/.gnupg", "~/.git-credentials",
];

/** Private keys and certificates by name, denied in the roots by default (docs/policy.md). */
export const DEFAULT_DENY_NAMES: readonly string[] = ["*.pem", "*.key", "id_*"];

export const DEFAULT_SANDBOX: SandboxSettings = {
  mode: "auto",
  denyRead: DEFAULT_DENY_READ,
  allowEnvFiles: false,
  denyNames: DEFAULT_DENY_NAMES,
  allowedDomains: [],
};

/** An agent's own state folders under HOME and its model API's domains, by registry name. */
interface AgentSandboxPreset {
  stateDirs: readonly string[];
  domains: readonly string[];
}

export const AGENT_SANDBOX_PRESETS: Record<string, AgentSandboxPreset> = {
  claude: {
    stateDirs: ["~/.claude", "~/.claude.json", "~/.config/claude"],
    domains: [
      "api.anthropic.com",
      "statsig.anthropic.com",
      "console.anthropic.com",
    ],
  },
  codex: {
    stateDirs: ["~/.codex"],
    domains: ["api.openai.com", "chatgpt.com", "auth.openai.com"],
  },
  gemini: {
    stateDirs: ["~/.gemini"],
    domains: [
      "generativelanguage.googleapis.com",
      "cloudcode-pa.googleapis.com",
      "oauth2.googleapis.com",
    ],
  },
  pi: {
    stateDirs: ["~/.pi"],
    domains: [
      "api.anthropic.com",
      "api.openai.com",
      "generativelanguage.googleapis.com",
    ],
  },
  opencode: {
    stateDirs: [
      "~/.local/share/opencode",
      "~/.config/opencode",
      "~/.cache/opencode",
    ],
    domains: ["api.anthropic.com", "api.openai.com", "models.dev"],
  },
  goose: {
    stateDirs: ["~/.config/goose", "~/.local/share/goose"],
    domains: ["api.anthropic.com", "api.openai.com"],
  },
  kiro: { stateDirs: ["~/.kiro"], domains: [] },
};
