import { describe, expect, it } from "vitest";
import { defaultAgentName, resolveAgent } from "../../src/agents/registry.js";
import { isHubError } from "../../src/shared/errors.js";

const env = {
  PATH: "/bin",
  HOME: "/h",
  ANTHROPIC_API_KEY: "sk",
  OPENAI_API_KEY: "o",
  GITHUB_TOKEN: "g",
};
const none = () => undefined;

describe("resolveAgent", () => {
  it("prefers an installed binary", () => {
    const launch = resolveAgent(
      "gemini",
      {},
      { env, which: (c) => `/usr/bin/${c}` },
    );
    expect(launch).toMatchObject({
      command: "/usr/bin/gemini",
      args: ["--acp"],
      source: "installed",
    });
  });
  it("falls back to npx -y PACKAGE", () => {
    expect(resolveAgent("claude", {}, { env, which: none })).toMatchObject({
      command: "npx",
      args: ["-y", "@agentclientprotocol/claude-agent-acp"],
      source: "npx",
    });
    expect(resolveAgent("opencode", {}, { env, which: none })).toMatchObject({
      args: ["-y", "opencode-ai", "acp"],
    });
  });
  it("agents without an npm package are not-installed with an install hint", () => {
    expect(resolveAgent("goose", {}, { env, which: none })).toMatchObject({
      command: "goose",
      args: ["acp"],
      source: "not-installed",
      installHint: expect.stringContaining("goose"),
    });
  });
  it("each agent sees only its own keys", () => {
    const claude = resolveAgent("claude", {}, { env, which: none });
    expect(claude.env).toEqual({
      PATH: "/bin",
      HOME: "/h",
      ANTHROPIC_API_KEY: "sk",
    });
    expect(resolveAgent("codex", {}, { env, which: none }).env).toEqual({
      PATH: "/bin",
      HOME: "/h",
      OPENAI_API_KEY: "o",
    });
  });
  it("config entries override built-ins and add new names", () => {
    const config = {
      agents: {
        claude: {
          command: "my-claude",
          args: ["x"],
          env: { A: "1" },
          passEnv: ["GITHUB_TOKEN"],
        },
      },
    };
    expect(resolveAgent("claude", config, { env })).toMatchObject({
      command: "my-claude",
      args: ["x"],
      source: "config",
      env: { PATH: "/bin", HOME: "/h", A: "1", GITHUB_TOKEN: "g" },
    });
  });
  it("an unknown name lists the known ones", () => {
    try {
      resolveAgent("nope", { agents: { mine: { command: "m" } } });
      expect.unreachable();
    } catch (error) {
      expect(isHubError(error, "AGENT_NOT_FOUND")).toBe(true);
      expect((error as Error).message).toBe(
        'unknown agent "nope"; known agents: claude, codex, gemini, goose, kiro, mine, mock, opencode, pi',
      );
    }
  });
  it("the default agent is the config's, else the mock", () => {
    expect(defaultAgentName({})).toBe("mock");
    expect(defaultAgentName({ defaultAgent: "claude" })).toBe("claude");
    expect(resolveAgent("mock", {}, { env }).args.at(-1)).toBe("mock-agent");
  });
});
