// The tests' temporary folders are removed when their file is done (test/helpers/temp-dirs.ts).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.js";

describe("test temp folders", () => {
  it("removes every folder tempDir made, with what is inside", () => {
    const home = tempDir("acphub-home-");
    const project = tempDir();
    mkdirSync(join(home, "ledger"));
    writeFileSync(join(home, "ledger", "acphub.db"), "x".repeat(1000));
    writeFileSync(join(project, "a.txt"), "a");
    expect(removeTempDirs()).toEqual([]);
    expect(existsSync(home)).toBe(false);
    expect(existsSync(project)).toBe(false);
  });

  it("forgets what it removed, and removes a folder gone already without complaint", () => {
    const dir = tempDir();
    expect(removeTempDirs()).toEqual([]);
    expect(removeTempDirs()).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});
