// Issue 28: the rough edges a newcomer meets in the first hour at the command line, each
// through the real CLI with a temporary ACPHUB_HOME.
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configSchema } from "../../src/config/schema.js";
import { homeWithScriptAgent, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

// Every key path the config schema allows, descending into objects (records and lists are
// one key each), so a key added to the schema later is checked too.
function schemaKeys(schema: z.ZodType, prefix = ""): string[] {
  const inner =
    schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (!(inner instanceof z.ZodObject)) return [prefix];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(
    ([key, value]) => schemaKeys(value, prefix ? `${prefix}.${key}` : key),
  );
}

const at = (tree: unknown, path: string): { found: boolean; value: unknown } =>
  path
    .split(".")
    .reduce<{ found: boolean; value: unknown }>(
      (acc, key) =>
        acc.found &&
        acc.value !== null &&
        typeof acc.value === "object" &&
        key in acc.value
          ? { found: true, value: (acc.value as Record<string, unknown>)[key] }
          : { found: false, value: undefined },
      { found: true, value: tree },
    );

// The text of `config show` without its comments: the JSON it annotates.
const uncommented = (text: string) =>
  JSON.parse(
    text
      .split("\n")
      .filter((l) => !l.startsWith("//"))
      .map((l) => l.replace(/ {2}\/\/ default.*$/, ""))
      .join("\n"),
  ) as unknown;

describe("config show lists every key of the schema with its default", () => {
  it("each schema key is in the text and the JSON, marked as a default", async () => {
    const home = tempDir("acphub-home-");
    const keys = schemaKeys(configSchema);
    expect(keys).toContain("serve.idleTimeoutMs");
    const text = await runCli(["config", "show"], { home });
    expect(text.code).toBe(0);
    const json = JSON.parse(
      (await runCli(["config", "show", "--json"], { home })).stdout,
    ) as { config: unknown; defaults: string[] };
    expect(uncommented(text.stdout)).toEqual(json.config);
    const missing = keys.filter((k) => !at(json.config, k).found);
    expect(missing).toEqual([]);
    const unmarked = keys.filter(
      (k) =>
        !json.defaults.some((d) => k === d || k.startsWith(`${d}.`)) ||
        !new RegExp(
          `"${k.split(".").at(-1)!.replace("$", "\\$")}": .*// default`,
        ).test(text.stdout),
    );
    expect(unmarked).toEqual([]);
    for (const [key, value] of [
      ["timeouts.requestMs", 120000],
      ["ledger.retryMs", 15000],
      ["ledger.retentionDays", null],
      ["serve.maxConnections", 256],
      ["serve.cancelOnDisconnect", false],
      ["terminals.sandbox", "auto"],
    ] as const)
      expect(at(json.config, key).value).toBe(value);
    expect(text.stdout).toContain(
      '"retentionDays": null,  // default: off: sessions are kept',
    );
  });
});

// A TCP server on a free loopback port, to make that port busy.
async function busyPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve()),
  );
  return { server, port: (server.address() as { port: number }).port };
}

describe("serve on a port in use", () => {
  it("exits 2 with one line naming the port and what to do", async () => {
    const { server, port } = await busyPort();
    try {
      const r = await runCli(["serve", "--port", String(port)]);
      expect(r.code).toBe(2);
      // Warnings (such as a missing OS sandbox) may come first; the error is one line.
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
        `acphub: port ${port} on 127.0.0.1 is already in use: pick another with --port N, or --port 0 for a free one`,
      );
      expect(r.stderr).not.toContain("EADDRINUSE");
    } finally {
      server.close();
    }
  });
});

// An agent named claude whose command writes Claude Code's refusal to stderr and exits 1 at
// once, as the real adapter does when run as root without IS_SANDBOX=1.
const EXITS_AT_ONCE = `process.stderr.write("starting\\nError: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\\n");
process.exit(1);`;

describe("agents doctor when the agent exits at once", () => {
  it("shows the last lines of its stderr and the known causes of that agent", async () => {
    const home = homeWithScriptAgent("claude", EXITS_AT_ONCE);
    const r = await runCli(["agents", "doctor", "claude"], { home });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /agent stderr: starting\n +Error: --dangerously-skip-permissions cannot be used with root\/sudo/,
    );
    expect(r.stdout).toContain(
      "hint: Claude Code refuses to run as root unless IS_SANDBOX=1",
    );
    expect(r.stdout).toContain("hint: no ANTHROPIC_API_KEY");
    const json = await runCli(["agents", "doctor", "claude", "--json"], {
      home,
    });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      agent: "claude",
      ok: false,
      error: { code: "AGENT_EXITED" },
      stderrTail: [
        "starting",
        expect.stringContaining("cannot be used with root/sudo"),
      ],
    });
    expect(report["hints"]).toEqual([
      expect.stringMatching(/IS_SANDBOX=1/),
      expect.stringMatching(/no ANTHROPIC_API_KEY/),
    ]);
  });

  it("--json on a healthy agent: timings, agent info, ok", async () => {
    const r = await runCli(["agents", "doctor", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      agent: "mock",
      ok: true,
      initializeMs: expect.any(Number),
      sessionNewMs: expect.any(Number),
      agentInfo: { name: "acphub-mock-agent" },
      protocolVersion: 1,
      hints: [],
    });
  });
});

// The commands a --help lists under "Commands:", walked down to the leaves, with their help.
async function leafCommands(
  path: string[] = [],
): Promise<{ leaf: string; help: string }[]> {
  const help = (await runCli([...path, "--help"])).stdout;
  const section = help.split("Commands:\n")[1];
  if (!section) return [{ leaf: path.join(" "), help }];
  const names = [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((m) => m[1]!)
    .filter((n) => n !== "help");
  const leaves = await Promise.all(
    names.map((n) => leafCommands([...path, n])),
  );
  return leaves.flat();
}

/** The commands that print no report, and why. */
const NO_REPORT: Record<string, string> = {
  chat: "a conversation at the terminal",
  acp: "speaks ACP on stdout",
  "mock-agent": "speaks ACP on stdout",
  "sessions export": "always writes JSON lines",
};

describe("every command that prints a report takes --json", () => {
  it("each leaf command's --help offers --json, but the ones that print no report", async () => {
    const leaves = await leafCommands();
    expect(leaves.map((l) => l.leaf)).toContain("agents doctor");
    const lacking = leaves
      .filter((l) => !(l.leaf in NO_REPORT))
      .filter((l) => !/^ {2}--json\b/m.test(l.help))
      .map((l) => l.leaf);
    expect(lacking).toEqual([]);
  }, 120_000);

  it("config path, config validate and permissions forget answer in JSON", async () => {
    const home = tempDir("acphub-home-");
    const path = await runCli(["config", "path", "--json"], { home });
    expect(JSON.parse(path.stdout)).toEqual({
      config: join(home, "config.json"),
      exists: false,
      state: home,
    });
    writeFileSync(join(home, "config.json"), '{"timeout": {}}');
    const bad = await runCli(["config", "validate", "--json"], { home });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      file: join(home, "config.json"),
      exists: true,
      valid: false,
      error: expect.stringContaining('did you mean "timeouts"?'),
    });
    writeFileSync(join(home, "config.json"), "{}");
    const forget = await runCli(["permissions", "forget", "--all", "--json"], {
      home,
    });
    expect(JSON.parse(forget.stdout)).toEqual({ forgot: 0 });
  });
});
