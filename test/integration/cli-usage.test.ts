// Issue 16: the CLI as people use it — mistakes in what they type get a clear message and the
// usage exit code, before anything is spawned.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

describe("--cwd that does not exist", () => {
  it.each([
    [["run", "--cwd", "/nonexistent", "hi"]],
    [["chat", "--cwd", "/nonexistent"]],
    [["acp", "--cwd", "/nonexistent"]],
  ])("%j says no such directory, exit 2", async (args) => {
    const r = await runCli(args, { input: "hello\n" });
    expect(r.stderr).toContain("no such directory: /nonexistent");
    expect(r.stderr).not.toMatch(/not found/);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
  });

  it("a file is not a directory", async () => {
    const file = join(tempDir(), "file.txt");
    writeFileSync(file, "x");
    const r = await runCli(["run", "--cwd", file, "hi"]);
    expect(r.stderr).toContain(`not a directory: ${file}`);
    expect(r.code).toBe(2);
  });
});
