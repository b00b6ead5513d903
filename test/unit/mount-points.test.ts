// What a kill -9 of acphub would leave of a sandboxed command: the mount points bubblewrap makes
// for absent bind destinations, found in the argv the runtime wraps it in; and the reaper's
// removal of those still empty.
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quote } from "shell-quote";
import { describe, expect, it } from "vitest";
import { mountPointsOf } from "../../src/host/sandbox/mount-points.js";
import { removeIfEmpty } from "../../src/shared/empty-paths.js";
import { tempDir } from "../helpers/mock.js";

// The runtime's shape: setpriv … -- sh -c "bwrap OPTIONS -- sh -c SCRIPT".
const wrapped = (options: string[], script = "true") => [
  "/usr/bin/setpriv",
  "--pdeathsig",
  "KILL",
  "--",
  "sh",
  "-c",
  quote(["bwrap", ...options, "--", "/usr/bin/sh", "-c", script]),
];

describe("mountPointsOf", () => {
  it("names the absent destinations of binds and the temp folders bound onto them", () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".zshrc"), "");
    const empty = tempDir("claude-empty-");
    const found = mountPointsOf(
      wrapped([
        "--ro-bind",
        "/",
        "/",
        "--bind",
        dir,
        dir,
        "--ro-bind",
        "/dev/null",
        join(dir, ".bashrc"),
        "--ro-bind",
        "/dev/null",
        join(dir, ".zshrc"),
        "--ro-bind",
        empty,
        join(dir, ".claude"),
        "--ro-bind",
        empty,
        empty,
        "--tmpfs",
        join(dir, "t"),
      ]),
    );
    expect(found.sort()).toEqual(
      [join(dir, ".bashrc"), join(dir, ".claude"), empty].sort(),
    );
    expect(empty.startsWith(tmpdir())).toBe(true);
  });

  it("reads none of the wrapped command's own words, and options given as argv", () => {
    const dir = tempDir();
    const script = `bwrap --bind /dev/null ${join(dir, "in-script")}`;
    expect(mountPointsOf(wrapped([], script))).toEqual([]);
    const direct = ["bwrap", "--ro-bind", "/dev/null", join(dir, "a"), "--"];
    expect(mountPointsOf([...direct, "--bind", "/", join(dir, "b")])).toEqual([
      join(dir, "a"),
    ]);
  });

  it("names again a mount point an earlier command of this process made, which exists now", () => {
    const dir = tempDir();
    const bind = ["--ro-bind", "/dev/null", join(dir, ".mcp.json")];
    expect(mountPointsOf(wrapped(bind))).toEqual([join(dir, ".mcp.json")]);
    writeFileSync(join(dir, ".mcp.json"), ""); // bubblewrap made it when that command ran
    expect(mountPointsOf(wrapped(bind))).toEqual([join(dir, ".mcp.json")]);
    writeFileSync(join(dir, ".gitconfig"), ""); // not this process's
    expect(
      mountPointsOf(
        wrapped(["--ro-bind", "/dev/null", join(dir, ".gitconfig")]),
      ),
    ).toEqual([]);
  });
});

describe("removeIfEmpty", () => {
  it("removes empty files and folders (deepest first), nothing with content or relative", () => {
    const dir = tempDir();
    const paths = {
      file: join(dir, ".bashrc"),
      full: join(dir, ".profile"),
      outer: join(dir, ".claude"),
      inner: join(dir, ".claude", "x"),
      kept: join(dir, ".idea"),
    };
    writeFileSync(paths.file, "");
    writeFileSync(paths.full, "export A=1\n");
    mkdirSync(paths.inner, { recursive: true });
    mkdirSync(paths.kept);
    writeFileSync(join(paths.kept, "workspace.xml"), "<x/>");
    removeIfEmpty([
      paths.file,
      paths.full,
      paths.outer,
      paths.inner,
      paths.kept,
      ".bashrc",
    ]);
    expect(existsSync(paths.file)).toBe(false);
    expect(existsSync(paths.outer)).toBe(false);
    expect(existsSync(paths.full)).toBe(true);
    expect(existsSync(paths.kept)).toBe(true);
  });
});
