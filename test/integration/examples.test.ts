// The library example in docs/library.md must keep working.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/mock.js";

describe("examples/library.mjs", () => {
  it("runs: streamed prompt, cancel, chat and the pool", async () => {
    const file = fileURLToPath(
      new URL("../../examples/library.mjs", import.meta.url),
    );
    const home = tempDir();
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: { PATH: process.env["PATH"], ACPHUB_HOME: home, HOME: home },
    });
    expect(stdout).toContain("agent: acphub-mock-agent");
    expect(stdout).toContain("stop reason: end_turn");
    expect(stdout).toContain("cancelled turn: cancelled");
    expect(stdout).toContain("chat: mock agent received: Say something");
    expect(stdout).toContain("pooled chat: mock agent received: ping");
  });
});
