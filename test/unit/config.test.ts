import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import { resolvePaths } from "../../src/config/paths.js";
import { tempDir } from "../helpers/mock.js";

describe("resolvePaths", () => {
  it("ACPHUB_HOME holds config and state", () => {
    expect(resolvePaths({ ACPHUB_HOME: "/hub", HOME: "/h" })).toEqual({
      configFile: "/hub/config.json",
      stateDir: "/hub",
    });
  });
  it("otherwise XDG folders, with the usual fallbacks", () => {
    expect(
      resolvePaths({ HOME: "/h", XDG_CONFIG_HOME: "/c", XDG_STATE_HOME: "/s" }),
    ).toEqual({ configFile: "/c/acphub/config.json", stateDir: "/s/acphub" });
    expect(resolvePaths({ HOME: "/h" })).toEqual({
      configFile: "/h/.config/acphub/config.json",
      stateDir: "/h/.local/state/acphub",
    });
  });
  it("--config overrides the file only", () => {
    expect(resolvePaths({ ACPHUB_HOME: "/hub" }, "/x.json")).toEqual({
      configFile: "/x.json",
      stateDir: "/hub",
    });
  });
});

describe("config validation", () => {
  it.each([
    [{ agents: { a: { command: "" } } }, /agents\.a\.command/],
    [
      { agents: { a: { command: "x", argz: [] } } },
      /unknown key agents\.a\.argz/,
    ],
    [{ timeouts: { shutdownMs: -5 } }, /timeouts\.shutdownMs/],
    [{ pool: { idleTtlMs: 1000 } }, /pool/],
    [{ permissions: { mode: "yolo" } }, /permissions\.mode/],
    [{ defaultAgent: 3 }, /defaultAgent/],
    [{ terminals: { sandbox: "maybe" } }, /terminals\.sandbox/],
    [{ agents: { a: { sandbox: "yes" } } }, /agents\.a\.sandbox/],
    [
      { terminals: { network: { allowedDomain: [] } } },
      /unknown key terminals\.network\.allowedDomain/,
    ],
    [[], /\(root\)/],
  ])("%j is rejected with the key named", (value, pattern) => {
    expect(() => parseConfig(JSON.stringify(value), "/f.json")).toThrowError(
      pattern,
    );
    expect(() => parseConfig(JSON.stringify(value), "/f.json")).toThrowError(
      /config file \/f\.json/,
    );
  });
  it("a full valid file parses", () => {
    const config = {
      defaultAgent: "c",
      agents: {
        c: { command: "x", args: ["--acp"], env: { A: "1" }, passEnv: ["B"] },
        claude: { sandbox: { stateDirs: ["~/.x"], allowedDomains: ["a.b"] } },
        pi: { sandbox: true },
      },
      timeouts: { initializeMs: 5 },
      limits: { maxMessageBytes: 10 },
      permissions: { mode: "ask" },
      env: { allow: ["X"] },
      terminals: {
        sandbox: "os",
        denyRead: ["~/.ssh"],
        allowEnvFiles: true,
        network: { allowedDomains: ["registry.npmjs.org"] },
        bwrapPath: "/usr/bin/bwrap",
      },
    };
    expect(parseConfig(JSON.stringify(config), "f")).toEqual(config);
  });
  it("a missing default file is an empty config; a present one is read", () => {
    const home = tempDir();
    expect(loadConfig({ env: { ACPHUB_HOME: home } })).toMatchObject({
      config: {},
      fromFile: false,
    });
    writeFileSync(join(home, "config.json"), '{"defaultAgent":"mock"}');
    expect(loadConfig({ env: { ACPHUB_HOME: home } })).toMatchObject({
      config: { defaultAgent: "mock" },
      fromFile: true,
    });
  });
});
