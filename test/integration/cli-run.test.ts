// The real CLI, spawned with a temporary ACPHUB_HOME, against the bundled mock agent.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir, waitFor } from "../helpers/mock.js";

describe("acphub run", () => {
  it("streams the reply as plain text and says the mock agent is in use", async () => {
    const r = await runCli(["run", "hello", "there"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("mock agent received: hello there\n");
    expect(r.stderr).toMatch(
      /no agent configured, so this is the built-in mock agent/,
    );
    expect(r.stderr).toMatch(/--agent claude\|codex/);
  });

  it("--json prints one event per line, as received, then a result line", async () => {
    const future = { sessionUpdate: "future_variant", x: 1, _meta: { k: "v" } };
    const r = await runCli([
      "run",
      "--json",
      steps({ text: "ab", chunks: 2 }, { update: future }),
    ]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => l["type"])).toEqual([
      "session_update",
      "session_update",
      "session_update",
      "result",
    ]);
    const sessionId = lines[0]!["sessionId"];
    expect(sessionId).toMatch(/^hub-/);
    expect(lines[0]).toEqual({
      type: "session_update",
      sessionId,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "a" },
      },
    });
    expect(lines[2]).toEqual({
      type: "session_update",
      sessionId,
      update: future,
    });
    expect(lines[3]).toMatchObject({
      type: "result",
      sessionId,
      stopReason: "end_turn",
    });
    expect(r.stderr).toBe("");
  });

  it("reads the prompt from stdin with -", async () => {
    const r = await runCli(["run", "-"], { input: "from stdin" });
    expect(r.stdout).toContain("mock agent received: from stdin");
  });

  it("exits 5 when a permission was refused, and prints the refusal", async () => {
    const r = await runCli([
      "run",
      steps({ permission: { title: "Delete files", kind: "delete" } }),
    ]);
    expect(r.code).toBe(5);
    const json = await runCli([
      "run",
      "--json",
      steps({ permission: { title: "Delete files", kind: "delete" } }),
    ]);
    const permission = jsonLines(json.stdout).find(
      (l) => l["type"] === "permission",
    )!;
    expect((permission["request"] as { sessionId: string }).sessionId).toBe(
      permission["sessionId"],
    );
    expect(r.stderr).toMatch(
      /\[permission\] Delete files: reject — approve-reads mode refused/,
    );
    const approved = await runCli([
      "run",
      "--permissions",
      "approve-all",
      steps({ permission: { title: "Delete", kind: "delete" } }),
    ]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("permission granted (allow)");
  });

  it("Ctrl-C cancels the turn and exits 130", async () => {
    const r = await runCli(
      ["run", "--json", steps({ text: "go" }, { sleep: 20_000 })],
      {
        onSpawn: (child) =>
          child.stdout!.once("data", () => child.kill("SIGINT")),
      },
    );
    expect(r.code).toBe(130);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({
      type: "result",
      stopReason: "cancelled",
    });
  });

  it("an agent crash is exit 1 with an AGENT_EXITED error event", async () => {
    const r = await runCli([
      "run",
      "--json",
      steps({ text: "x" }, { exit: 4 }),
    ]);
    expect(r.code).toBe(1);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "AGENT_EXITED",
      message: expect.stringMatching(/exited with code 4/),
    });
  });
});

describe("acphub run --session", () => {
  it("continues a recorded session, and a missing one is exit 4", async () => {
    const home = tempDir();
    const first = jsonLines(
      (await runCli(["run", "--json", "remember the word kiwi"], { home }))
        .stdout,
    );
    const sessionId = String(first.at(-1)!["sessionId"]);
    const again = await runCli(
      ["run", "--json", "--session", sessionId, "what was the word?"],
      { home },
    );
    expect(again.code).toBe(0);
    const lines = jsonLines(again.stdout);
    expect(lines.every((l) => l["sessionId"] === sessionId)).toBe(true);
    // The mock cannot resume: acphub says so and primes the new agent session with the transcript.
    expect(again.stdout).toContain("gives it the conversation so far");
    expect(again.stdout).toContain("remember the word kiwi");
    const missing = await runCli(
      ["run", "--json", "--session", "hub-nope", "x"],
      { home },
    );
    expect(missing.code).toBe(4);
    expect(jsonLines(missing.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "SESSION_NOT_FOUND",
    });
    const shown = await runCli(["sessions", "show", sessionId], { home });
    expect(shown.stdout).toContain("what was the word?");
  });
});

describe("acphub run with bad input", () => {
  it("an invalid config file is exit 2 naming the file and the key", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ agents: { x: { command: 5 } }, colour: "red" }),
    );
    const r = await runCli(["run", "hi"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`config file ${join(home, "config.json")}`);
    expect(r.stderr).toMatch(/unknown key colour/);
  });

  it("config that is not JSON is exit 2", async () => {
    const home = tempDir();
    writeFileSync(join(home, "config.json"), "{ nope");
    const r = await runCli(["run", "hi"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not valid JSON/);
  });

  it("an unknown agent is exit 2 listing the known names", async () => {
    const r = await runCli(["run", "--agent", "nosuch", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /unknown agent "nosuch"; known agents: claude, codex, gemini, goose, kiro, mock, opencode, pi/,
    );
  });

  it("a configured agent whose command does not exist is exit 1 saying so", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        defaultAgent: "ghost",
        agents: { ghost: { command: "no-such-acp-agent" } },
      }),
    );
    const r = await runCli(["run", "hi"], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start agent "ghost": command "no-such-acp-agent" not found/,
    );
  });

  it("usage errors are exit 2", async () => {
    expect((await runCli(["run"])).code).toBe(2);
    expect((await runCli(["run", "--permissions", "maybe", "x"])).code).toBe(2);
    expect((await runCli(["run", "--timeout", "-1", "x"])).code).toBe(2);
    expect((await runCli(["nosuchcommand"])).code).toBe(2);
  });

  it("a failure after the agent was spawned early leaves no agent behind", async () => {
    const home = tempDir();
    const marker = `acphub-leak-check-${Date.now()}`;
    const agents = {
      m: {
        command: process.execPath,
        args: [CLI, "mock-agent", "--banner", marker],
      },
    };
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ defaultAgent: "m", agents }),
    );
    mkdirSync(join(home, "ledger.db")); // the ledger cannot open: acphub fails after the spawn
    const r = await runCli(["run", "hi"], { home });
    expect(r.code).toBe(2); // the ledger cannot be used: an environment problem, like bad config
    expect(r.stderr).toMatch(/acphub: ledger .*ledger\.db: /);
    const alive = () =>
      readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .some((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
          } catch {
            return false;
          }
        });
    expect(await waitFor(() => !alive())).toBe(true);
  });

  it("--config FILE must exist", async () => {
    const r = await runCli([
      "--config",
      "/nonexistent/acphub.json",
      "run",
      "hi",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /cannot read config file \/nonexistent\/acphub.json: ENOENT/,
    );
  });
});

describe("acphub mock-agent --help", () => {
  it("documents the scenario language", async () => {
    const r = await runCli(["mock-agent", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Scenario language/);
    for (const step of [
      "permission",
      "readFile",
      "terminal",
      "oversized",
      "hang",
    ])
      expect(r.stdout).toContain(step);
  });
});
