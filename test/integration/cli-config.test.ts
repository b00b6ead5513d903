// Issue 16, item 8: the config commands tell the truth about the effective config.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

describe("config commands", () => {
  it("config show with no file shows the defaults, marked as defaults", async () => {
    const home = tempDir("acphub-home-");
    const r = await runCli(["config", "show"], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `// no config file at ${home}/config.json: every value is a default`,
    );
    expect(r.stdout).toContain('"defaultAgent": "mock",  // default');
    expect(r.stdout).toContain('"initializeMs": 30000,  // default');
    expect(r.stdout).toContain('"maxSessions": 10000,  // default');
    const json = JSON.parse(
      (await runCli(["config", "show", "--json"], { home })).stdout,
    ) as {
      file: string | null;
      config: Record<string, unknown>;
      defaults: string[];
    };
    expect(json.file).toBeNull();
    expect(json.config).toMatchObject({
      defaultAgent: "mock",
      ledger: { maxSessions: 10000 },
      timeouts: { initializeMs: 30000, cancelGraceMs: 10000 },
    });
    expect(json.defaults).toContain("timeouts");
  });

  it("config show marks only what the file does not set", async () => {
    const home = tempDir("acphub-home-");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ timeouts: { shutdownMs: 500 } }),
    );
    const r = await runCli(["config", "show"], { home });
    expect(r.stdout).toMatch(/"shutdownMs": 500,?\n/);
    expect(r.stdout).toContain('"initializeMs": 30000,  // default');
    const json = JSON.parse(
      (await runCli(["config", "show", "--json"], { home })).stdout,
    ) as { file: string; defaults: string[] };
    expect(json.file).toBe(join(home, "config.json"));
    expect(json.defaults).toContain("timeouts.initializeMs");
    expect(json.defaults).not.toContain("timeouts.shutdownMs");
  });

  it("config validate with no file agrees with config path: defaults apply, exit 0", async () => {
    const home = tempDir("acphub-home-");
    const path = await runCli(["config", "path"], { home });
    expect(path.stdout).toContain("defaults apply");
    const r = await runCli(["config", "validate"], { home });
    expect(r.stdout).toBe(
      `no config file at ${home}/config.json: nothing to check, defaults apply\n`,
    );
    expect(r.code).toBe(0);
    const named = await runCli(
      ["config", "validate", join(home, "nope.json")],
      {
        home,
      },
    );
    expect(named.code).toBe(2);
  });

  it("an unknown defaultAgent fails validation, and every command names the file", async () => {
    const home = tempDir("acphub-home-");
    const file = join(home, "config.json");
    writeFileSync(file, JSON.stringify({ defaultAgent: "nosuch" }));
    const validate = await runCli(["config", "validate"], { home });
    expect(validate.stderr).toContain(
      `config file ${file}: defaultAgent: unknown agent "nosuch"`,
    );
    expect(validate.code).toBe(2);
    for (const args of [["run", "hi"], ["agents", "doctor"], ["chat"]]) {
      const r = await runCli(args, { home, input: "hi\n" });
      expect(r.stderr).toContain(`config file ${file}: defaultAgent`);
      expect(r.code).toBe(2);
    }
  });
});
