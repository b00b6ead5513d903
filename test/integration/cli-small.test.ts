// Issue 16, item 9: the small things a new user trips over, each through the real CLI.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

const NOTICE = /no agent configured, so this is the built-in mock agent/;

describe("small things", () => {
  it("permissions forget --all with nothing remembered is fine", async () => {
    const r = await runCli(["permissions", "forget", "--all"]);
    expect(r.stdout).toBe("no remembered decisions\n");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("sessions list --cwd accepts . and a trailing slash", async () => {
    const home = tempDir("acphub-home-");
    const work = join(tempDir(), "project");
    mkdirSync(work);
    expect((await runCli(["run", "--cwd", work, "hi"], { home })).code).toBe(0);
    for (const [cwd, arg] of [
      [work, "."],
      [join(work, ".."), "project/"],
      [undefined, `${work}/`],
    ]) {
      const r = await runCli(["sessions", "list", "--json", "--cwd", arg!], {
        home,
        cwd,
      });
      const list = JSON.parse(r.stdout) as { cwd: string }[];
      expect(list.map((s) => s.cwd)).toEqual([work]);
    }
  });

  it("log lines on stderr are for people unless --verbose or --log-format json", async () => {
    const prompt = steps({ garbage: "not json" }, { text: "ok" });
    const plain = await runCli(["run", prompt]);
    expect(plain.stderr).toMatch(
      /^acphub: warning: agent wrote non-JSON to stdout; ignored \(agent=mock, line=not json\)$/m,
    );
    expect(plain.stderr).not.toContain('{"level"');
    const json = await runCli(["--log-format", "json", "run", prompt]);
    expect(json.stderr).toMatch(/^\{"level":40,.*"line":"not json"/m);
    const verbose = await runCli(["--verbose", "run", prompt]);
    expect(verbose.stderr).toMatch(/^\{"level":40,.*"line":"not json"/m);
  });

  it("--log-file that cannot be written is a clear usage error", async () => {
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "x");
    const r = await runCli(["--log-file", join(file, "log.txt"), "run", "hi"]);
    expect(r.stderr).toBe(
      `acphub: cannot write the log file ${join(file, "log.txt")}: part of its path is a file, not a folder; choose a writable path\n`,
    );
    expect(r.code).toBe(2);
  });

  it("the first Ctrl-C in run says it is cancelling, even when the agent ignores it", async () => {
    let stderr = "";
    const r = await runCli(["run", steps({ text: "go\n" }, { hang: true })], {
      onSpawn: (child) => {
        child.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes("cancelling")) child.kill("SIGINT");
        });
        child.stdout!.once("data", () => {
          child.kill("SIGINT");
          // Without feedback there is nothing to wait for: the second Ctrl-C comes anyway.
          setTimeout(() => child.kill("SIGINT"), 3000).unref();
        });
      },
    });
    expect(r.stderr).toContain(
      "acphub: cancelling the turn… (Ctrl-C again to exit now)",
    );
    expect(r.code).toBe(130);
  });

  it('the "no agent configured" notice is said once per state folder', async () => {
    const home = tempDir("acphub-home-");
    expect((await runCli(["run", "hi"], { home })).stderr).toMatch(NOTICE);
    const again = await runCli(["run", "hi"], { home });
    expect(again.stderr).not.toMatch(NOTICE);
    expect(again.code).toBe(0);
  });

  it("run - with empty stdin says so", async () => {
    const r = await runCli(["run", "-"], { input: "" });
    expect(r.stderr).toBe("acphub: the prompt read from stdin is empty\n");
    expect(r.code).toBe(2);
  });

  it("a prompt from stdin loses one trailing newline, like the same prompt as an argument", async () => {
    const home = tempDir("acphub-home-");
    const piped = await runCli(["run", "-"], { home, input: "fix it\n" });
    const typed = await runCli(["run", "fix it"], { home });
    expect(piped.stdout).toBe("mock agent received: fix it\n");
    expect(piped.stdout).toBe(typed.stdout);
    const kept = await runCli(["run", "-"], { home, input: "a\n\n" });
    expect(kept.stdout).toBe("mock agent received: a\n\n");
  });

  it('"did you mean" for a misspelt agent, command and config key', async () => {
    const agent = await runCli(["run", "--agent", "claud", "hi"]);
    expect(agent.stderr).toContain(
      'unknown agent "claud" (did you mean "claude"?)',
    );
    expect(agent.code).toBe(2);
    const command = await runCli(["chta"]);
    expect(command.stderr).toContain("Did you mean chat?");
    expect(command.code).toBe(2);
    const home = tempDir("acphub-home-");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ defaultAgnet: "mock", timeouts: { initialiseMs: 1 } }),
    );
    const config = await runCli(["config", "validate"], { home });
    expect(config.stderr).toContain(
      'unknown key timeouts.initialiseMs (did you mean "initializeMs"?)',
    );
    expect(config.stderr).toContain(
      'unknown key defaultAgnet (did you mean "defaultAgent"?)',
    );
    expect(config.code).toBe(2);
  });
});
