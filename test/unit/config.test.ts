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
    [
      { serve: { trustedProxies: ["127.0.0.1", "nginx"] } },
      /serve\.trustedProxies\.1: "nginx" is not an IP address or CIDR range/,
    ],
    [
      { serve: { trustedProxies: ["10.0.0.0/33"] } },
      /serve\.trustedProxies\.0: "10\.0\.0\.0\/33": the prefix length after "\/" must be 0 to 32/,
    ],
    [
      { serve: { trustedProxies: ["10.0.0.0/8/1"] } },
      /serve\.trustedProxies\.0: "10\.0\.0\.0\/8\/1" is not an IP address/,
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
  it("serve.trustedProxies takes IPv4 and IPv6 addresses and CIDR ranges", () => {
    const proxies = ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "0.0.0.0/0"];
    const config = parseConfig(
      JSON.stringify({ serve: { trustedProxies: proxies } }),
      "/f.json",
    );
    expect(config.serve?.trustedProxies).toEqual(proxies);
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
