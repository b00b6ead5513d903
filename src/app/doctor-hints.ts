// What `agents doctor` suggests after a failure: the known causes of each built-in agent (one
// table), recognised in what the agent said (its error, its data, its stderr) and in the
// environment it was given, in plain words with the next step.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { BUILTIN_AGENTS } from "../agents/builtin-agents.js";

/** What a cause is recognised in. */
export interface HintContext {
  /** The agent's name as configured. */
  agent: string;
  /** Everything the agent said: error message, data, stderr. */
  said: string;
  /** The environment the agent process got. */
  env: Readonly<Record<string, string | undefined>>;
  /** The agent's command, to know a built-in under another name. */
  command?: string;
  /** acphub's user id (0: root); undefined where there is none. */
  uid?: number;
  /** The home folder logins are looked for in. */
  home?: string;
}

interface Cause {
  /** The built-in agents it is known for; absent: any agent. */
  agents?: readonly string[];
  /** One hint per topic: an agent's own login hint replaces the generic one. */
  topic: "root" | "login" | "node" | "missing";
  applies: (c: HintContext, home: string) => boolean;
  hint: (c: HintContext) => string;
}

// True when none of `keys` is in the agent's environment and no file of `logins` exists.
const noKeyNorLogin =
  (
    keys: readonly string[],
    logins: (c: HintContext, home: string) => string[],
  ) =>
  (c: HintContext, home: string) =>
    !keys.some((k) => c.env[k]) &&
    !logins(c, home).some((file) => existsSync(file));

const PROVIDER_KEYS = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "OPENROUTER_API_KEY",
];

// The table: per built-in agent, the causes known to stop it at once, then the generic ones.
const CAUSES: readonly Cause[] = [
  {
    agents: ["claude"],
    topic: "root",
    applies: (c) =>
      (c.uid === 0 && c.env["IS_SANDBOX"] !== "1") ||
      /root\/sudo|as root|IS_SANDBOX/i.test(c.said),
    hint: (c) =>
      `Claude Code refuses to run as root unless IS_SANDBOX=1: inside a container or VM, set it for the agent in the config file ("agents": {"${c.agent}": {"env": {"IS_SANDBOX": "1"}}}), or run acphub as another user.`,
  },
  {
    agents: ["claude"],
    topic: "login",
    applies: noKeyNorLogin(
      [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
      ],
      (c, home) => [
        join(
          c.env["CLAUDE_CONFIG_DIR"] ?? join(home, ".claude"),
          ".credentials.json",
        ),
      ],
    ),
    hint: () =>
      "no ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) reached the agent and no Claude login was found: run `claude` once and log in with /login, or export ANTHROPIC_API_KEY before starting acphub (it is passed to claude).",
  },
  {
    agents: ["codex"],
    topic: "login",
    applies: noKeyNorLogin(["OPENAI_API_KEY"], (c, home) => [
      join(c.env["CODEX_HOME"] ?? join(home, ".codex"), "auth.json"),
    ]),
    hint: () =>
      "no OPENAI_API_KEY reached the agent and no Codex login was found: run `codex login`, or export OPENAI_API_KEY before starting acphub.",
  },
  {
    agents: ["gemini"],
    topic: "login",
    applies: noKeyNorLogin(
      [
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_APPLICATION_CREDENTIALS",
      ],
      (_c, home) => [join(home, ".gemini", "oauth_creds.json")],
    ),
    hint: () =>
      "no GEMINI_API_KEY reached the agent and no Gemini login was found: start `gemini` once and log in, or export GEMINI_API_KEY before starting acphub.",
  },
  {
    agents: ["opencode"],
    topic: "login",
    applies: noKeyNorLogin(PROVIDER_KEYS, (_c, home) => [
      join(home, ".local", "share", "opencode", "auth.json"),
    ]),
    hint: () =>
      "no provider key reached the agent and no OpenCode login was found: run `opencode auth login`, or export a provider key (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) before starting acphub.",
  },
  {
    agents: ["pi"],
    topic: "login",
    applies: noKeyNorLogin(PROVIDER_KEYS, (_c, home) => [
      join(home, ".pi", "agent", "auth.json"),
    ]),
    hint: () =>
      "no provider key reached the agent and no pi login was found: run `pi` once and log in with /login, or export a provider key (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) before starting acphub.",
  },
  {
    agents: ["goose"],
    topic: "login",
    applies: (c, home) =>
      !c.env["GOOSE_PROVIDER"] &&
      !existsSync(join(home, ".config", "goose", "config.yaml")),
    hint: () =>
      "goose has no provider configured: run `goose configure` once, or set GOOSE_PROVIDER and its key.",
  },
  {
    agents: ["kiro"],
    topic: "login",
    applies: (c) => /log ?in|auth/i.test(c.said),
    hint: () => "Kiro needs a login: run `kiro-cli login` once.",
  },
  {
    topic: "login",
    applies: (c) =>
      /not (logged|signed) in|please (run \/)?log ?in|\blogin\b|authenticat|unauthori[sz]ed|\b401\b|invalid api[ _-]?key|api[ _-]?key (is )?(missing|not set|required)|credentials?/i.test(
        c.said,
      ),
    hint: (c) =>
      `it looks like ${c.agent} is not logged in: log in with the agent's own command (for example \`claude /login\`, \`codex login\`, or start \`gemini\` once), or give it its API key (see the agents table in docs/cli.md).`,
  },
  {
    topic: "node",
    applies: (c) =>
      /unsupported engine|requires? node(\.js)?( version)? ?(>=|v|\d)|node(\.js)? (>=|v)?\d+(\.\d+)* (or (newer|higher|later)|is required)|ERR_UNKNOWN_BUILTIN_MODULE|ERR_REQUIRE_ESM|node:sqlite|SyntaxError: (Unexpected token|Invalid regular expression)/i.test(
        c.said,
      ),
    hint: () =>
      `it seems to need a newer Node.js than this one (${process.version}): install a current Node (22 or later) for the agent, or point its command at one in the config file.`,
  },
  {
    topic: "missing",
    applies: (c) =>
      /command not found|not found on PATH|\bENOENT\b|cannot find module|could not determine executable|is not installed|no such file or directory/i.test(
        c.said,
      ),
    hint: () =>
      "a program it needs is missing: install the agent (see `acphub agents list` for the package) and check that it runs on its own.",
  },
];

// The built-in agent a launch is: by its name, else by its command (`claude-agent-acp`).
function builtinOf(c: HintContext): string | undefined {
  const byName = BUILTIN_AGENTS.find((a) => a.name === c.agent);
  if (byName) return byName.name;
  const command = c.command ? basename(c.command) : undefined;
  return BUILTIN_AGENTS.find((a) => a.bin.command === command)?.name;
}

// The hints that fit, one per topic, the agent's own before the generic ones; empty when
// none fits.
export function doctorHints(c: HintContext): string[] {
  const builtin = builtinOf(c);
  const home = c.home ?? homedir();
  const topics = new Set<string>();
  const hints: string[] = [];
  for (const cause of CAUSES) {
    if (cause.agents && (!builtin || !cause.agents.includes(builtin))) continue;
    if (topics.has(cause.topic) || !cause.applies(c, home)) continue;
    topics.add(cause.topic);
    hints.push(cause.hint(c));
  }
  return hints;
}
