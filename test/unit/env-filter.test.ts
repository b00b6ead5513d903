import { describe, expect, it } from "vitest";
import { filterEnv } from "../../src/shared/env-filter.js";

const source = {
  PATH: "/bin",
  HOME: "/h",
  LC_ALL: "C",
  XDG_STATE_HOME: "/s",
  ANTHROPIC_API_KEY: "sk-a",
  OPENAI_API_KEY: "sk-o",
  AWS_SECRET_ACCESS_KEY: "aws",
  GITHUB_TOKEN: "gh",
  MY_SERVICE_TOKEN: "t",
  DB_PASSWORD: "p",
  RANDOM_VAR: "r",
  GOOGLE_API_KEY: "g",
};

describe("filterEnv", () => {
  it("passes only the base allowlist by default", () => {
    expect(filterEnv(source)).toEqual({
      PATH: "/bin",
      HOME: "/h",
      LC_ALL: "C",
      XDG_STATE_HOME: "/s",
    });
  });
  it("adds registry variables, but the deny list still removes them", () => {
    const env = filterEnv(source, {
      registryAllow: ["ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GITHUB_TOKEN"],
    });
    expect(env["ANTHROPIC_API_KEY"]).toBe("sk-a");
    expect(env["GOOGLE_API_KEY"]).toBeUndefined();
    expect(env["GITHUB_TOKEN"]).toBeUndefined();
    expect(env["OPENAI_API_KEY"]).toBeUndefined();
  });
  it("variables the user names pass even when denied; literal values are set", () => {
    const env = filterEnv(source, {
      userAllow: ["GITHUB_TOKEN", "MY_*"],
      set: { FOO: "1" },
    });
    expect(env).toMatchObject({
      GITHUB_TOKEN: "gh",
      MY_SERVICE_TOKEN: "t",
      FOO: "1",
    });
    expect(env["DB_PASSWORD"]).toBeUndefined();
    expect(env["AWS_SECRET_ACCESS_KEY"]).toBeUndefined();
  });
});
