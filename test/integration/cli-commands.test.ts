// agents, config, sessions export/import, --help and --version, through the real CLI.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, tempDir } from "../helpers/mock.js";

const mockAgent = (flags: string[]) => ({
  command: process.execPath,
  args: [CLI, "mock-agent", ...flags],
});

describe("acphub agents", () => {
  it("list shows every entry, how it launches, and the default", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ defaultAgent: "mine", agents: { mine: mockAgent([]) } }),
    );
    const r = await runCli(["agents", "list"], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^\* mine +installed +config +\S+node\S* \S+main\.js mock-agent$/m,
    );
    expect(r.stdout).toMatch(/^ {2}claude +(installed|via npx) +built-in /m);
    const json = JSON.parse(
      (await runCli(["agents", "list", "--json"], { home })).stdout,
    ) as { name: string; default: boolean; env?: unknown }[];
    expect(json.map((a) => a.name)).toEqual([
      "claude",
      "codex",
      "gemini",
      "goose",
      "kiro",
      "mine",
      "mock",
      "opencode",
      "pi",
    ]);
    expect(json.find((a) => a.default)?.name).toBe("mine");
    expect(json.every((a) => a.env === undefined)).toBe(true);
  });

  it("doctor times a healthy agent and explains broken ones in plain words", async () => {
    const home = tempDir();
    const agents = {
      auth: mockAgent(["--auth-required"]),
      // A shell prints its banner at once and never answers.
      noisy: { command: "sh", args: ["-c", "echo Welcome!; exec sleep 60"] },
      ghost: { command: "no-such-agent-binary" },
    };
    // Only the agent meant to time out gets a short initialize timeout: under load the others
    // may take longer than that to start. It never answers, so this test always waits the whole
    // timeout.
    writeFileSync(join(home, "config.json"), JSON.stringify({ agents }));
    const short = join(home, "short-timeout.json");
    writeFileSync(
      short,
      JSON.stringify({ agents, timeouts: { initializeMs: 2000 } }),
    );
    const ok = await runCli(["agents", "doctor", "mock"], { home });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /spawn \+ initialize: \d+ ms\n {2}agent: acphub-mock-agent 1, protocol version 1\n/,
    );
    expect(ok.stdout).toMatch(/session\/new: \d+ ms\nok\n$/);
    const auth = await runCli(["agents", "doctor", "auth"], { home });
    expect(auth.stdout).toMatch(
      /needs you to log in first \(auth methods: \[\{"id":"mock-login"/,
    );
    expect(auth.code).toBe(1);
    const noisy = await runCli(
      ["--config", short, "agents", "doctor", "noisy"],
      { home },
    );
    expect(noisy.stdout).toMatch(
      /printed something other than ACP to stdout and never answered.*"Welcome!"/,
    );
    expect(noisy.code).toBe(3);
    const ghost = await runCli(["agents", "doctor", "ghost"], { home });
    expect(ghost.stdout).toMatch(/it is not installed or not on PATH/);
    expect((await runCli(["agents", "doctor", "nope"], { home })).code).toBe(2);
  });
});

describe("acphub config", () => {
  it("path, show with secrets masked, validate", async () => {
    const home = tempDir();
    expect((await runCli(["config", "path"], { home })).stdout).toBe(
      `config: ${home}/config.json (not created yet; defaults apply)\nstate:  ${home}\n`,
    );
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        agents: {
          a: { command: "x", env: { MY_API_KEY: "sk-123", MODE: "fast" } },
        },
      }),
    );
    const show = JSON.parse(
      (await runCli(["config", "show", "--json"], { home })).stdout,
    ) as { config: { agents: { a: { env: Record<string, string> } } } };
    expect(show.config.agents.a.env).toEqual({
      MY_API_KEY: "***",
      MODE: "fast",
    });
    expect((await runCli(["config", "validate"], { home })).stdout).toBe(
      `${home}/config.json is valid\n`,
    );
    const bad = join(home, "bad.json");
    writeFileSync(bad, JSON.stringify({ timeouts: { initializeMs: "soon" } }));
    const invalid = await runCli(["config", "validate", bad], { home });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(
      /config file .*bad\.json: timeouts\.initializeMs: Invalid input: expected number, received string/,
    );
    expect(
      (await runCli(["config", "validate", join(home, "none.json")], { home }))
        .code,
    ).toBe(2);
  });
});

describe("acphub sessions export and import", () => {
  it("round-trips a session through JSON lines", async () => {
    const home = tempDir();
    const run = jsonLines(
      (await runCli(["run", "--json", "export me"], { home })).stdout,
    );
    const id = String(run.at(-1)!["sessionId"]);
    const file = join(home, "s.jsonl");
    expect(
      (await runCli(["sessions", "export", id, "-o", file], { home })).code,
    ).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines[0]).toMatchObject({
      type: "session",
      session: { id, title: "export me" },
    });
    expect(lines.slice(1).every((l) => l.type === "event")).toBe(true);
    const other = tempDir();
    expect(
      (await runCli(["sessions", "import", file], { home: other })).stdout,
    ).toBe(`imported ${id} (${lines.length - 1} events)\n`);
    const shown = await runCli(["sessions", "show", id], { home: other });
    expect(shown.stdout).toContain("mock agent received: export me");
    expect(
      (await runCli(["sessions", "import", file], { home: other })).code,
    ).toBe(2);
    expect(
      (await runCli(["sessions", "import", "--replace", file], { home: other }))
        .code,
    ).toBe(0);
    writeFileSync(join(home, "junk.jsonl"), '{"type":"what"}\n');
    const junk = await runCli(
      ["sessions", "import", join(home, "junk.jsonl")],
      { home: other },
    );
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(
      /junk\.jsonl: line 1: expected a "session" or "event" line/,
    );
  });
});

describe("help and version", () => {
  it.each([
    [["--help"]],
    [["run", "--help"]],
    [["acp", "--help"]],
    [["sessions", "--help"]],
    [["agents", "doctor", "--help"]],
    [["config", "validate", "--help"]],
    [["permissions", "--help"]],
    [["mock-agent", "--help"]],
  ])("%j prints usage", async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: acphub/);
  });
  it("--version prints the package version", async () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect((await runCli(["--version"])).stdout.trim()).toBe(pkg.version);
  });
});
