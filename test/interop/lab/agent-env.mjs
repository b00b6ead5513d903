// How each real agent is launched against the fake model: an isolated HOME (and CODEX_HOME,
// ~/.pi/agent) per lab run, the model's URL, a throw-away key, and nothing that phones home.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentBin, agentDir } from "./install.mjs";

/** @typedef {{ command: string, args: string[], env: Record<string, string> }} Launch */

const FAKE_KEY = "sk-fake-interop";

// Settings shared by every agent: PATH, a private HOME and XDG folders under `root`.
function baseEnv(root) {
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    TERM: "dumb",
  };
}

// claude-code-acp: Anthropic Messages at ANTHROPIC_BASE_URL; root needs IS_SANDBOX=1.
function claude(root, modelUrl) {
  return {
    ...baseEnv(root),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: FAKE_KEY,
    IS_SANDBOX: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

// codex-acp: a model provider "fake" speaking Responses, approvals on, no sandbox of its own.
function codex(root, modelUrl) {
  const env = baseEnv(root);
  const codexHome = join(root, "codex-home");
  mkdirSync(codexHome, { recursive: true });
  const toml = [
    `model = "fake-model"`,
    `model_provider = "fake"`,
    `approval_policy = "untrusted"`,
    `sandbox_mode = "danger-full-access"`,
    ``,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = "${modelUrl}/v1"`,
    `env_key = "FAKE_MODEL_API_KEY"`,
    `wire_api = "responses"`,
    ``,
  ].join("\n");
  writeFileSync(join(codexHome, "config.toml"), toml);
  return { ...env, CODEX_HOME: codexHome, FAKE_MODEL_API_KEY: FAKE_KEY };
}

// pi-acp: pi with a custom provider speaking Chat Completions, picked in settings.json.
function pi(root, modelUrl) {
  const env = baseEnv(root);
  const agentHome = join(env.HOME, ".pi", "agent");
  mkdirSync(agentHome, { recursive: true });
  const models = {
    providers: {
      fake: {
        baseUrl: `${modelUrl}/v1`,
        api: "openai-completions",
        apiKey: FAKE_KEY,
        compat: {
          supportsDeveloperRole: false,
          supportsReasoningEffort: false,
        },
        models: [
          {
            id: "fake-model",
            name: "Fake model",
            reasoning: false,
            input: ["text"],
            contextWindow: 128000,
            maxTokens: 4096,
          },
        ],
      },
    },
  };
  writeFileSync(
    join(agentHome, "models.json"),
    JSON.stringify(models, null, 2),
  );
  writeFileSync(
    join(agentHome, "settings.json"),
    JSON.stringify(
      {
        defaultProvider: "fake",
        defaultModel: "fake-model",
        quietStartup: true,
      },
      null,
      2,
    ),
  );
  return {
    ...env,
    PI_ACP_PI_COMMAND: join(agentDir("pi"), "node_modules", ".bin", "pi"),
  };
}

const ENVS = { claude, codex, pi };

/**
 * The launch of one installed agent against the fake model at `modelUrl`, its state under `root`.
 * @param {import("./versions.mjs").AgentName} name @param {string} root @param {string} modelUrl
 * @returns {Launch}
 */
export function agentLaunch(name, root, modelUrl) {
  mkdirSync(root, { recursive: true });
  return { command: agentBin(name), args: [], env: ENVS[name](root, modelUrl) };
}
