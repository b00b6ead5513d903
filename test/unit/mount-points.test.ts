// What a kill -9 of acphub would leave of a sandboxed command: the mount points bubblewrap makes
// for absent bind destinations, found in the argv the runtime wraps it in; and the reaper's
// removal of those still as bubblewrap made them.
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quote } from "shell-quote";
import { describe, expect, it } from "vitest";
import { mountPointsOf } from "../../src/host/sandbox/mount-points.js";
import { removeMountLeftovers } from "../../src/shared/mount-leftovers.js";
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

describe("removeMountLeftovers", () => {
  it("removes what bubblewrap made while it still is that (deepest first): an empty read-only file, an empty dot folder, the runtime's empty folder in the temp dir", () => {
    const dir = tempDir();
    const made = {
      file: join(dir, ".bashrc"),
      outer: join(dir, ".claude"),
      inner: join(dir, ".claude", ".x"),
      source: tempDir("claude-empty-"),
    };
    writeFileSync(made.file, "", { mode: 0o444 });
    mkdirSync(made.inner, { recursive: true });
    const kept = {
      written: join(dir, ".profile"), // read-only, with content
      writable: join(dir, ".zshrc"), // empty, but the user's (0644)
      full: join(dir, ".idea"), // a folder with something in it
      plain: join(dir, "build"), // an empty folder, not a dot name
      elsewhere: join(dir, "claude-empty-x"), // the runtime's name, not in the temp dir
    };
    writeFileSync(kept.written, "export A=1\n", { mode: 0o444 });
    writeFileSync(kept.writable, "", { mode: 0o644 });
    mkdirSync(kept.full);
    writeFileSync(join(kept.full, "workspace.xml"), "<x/>");
    mkdirSync(kept.plain);
    mkdirSync(kept.elsewhere);
    removeMountLeftovers([
      ...Object.values(made),
      ...Object.values(kept),
      ".bashrc",
    ]);
    for (const path of Object.values(made))
      expect(existsSync(path)).toBe(false);
    for (const path of Object.values(kept)) expect(existsSync(path)).toBe(true);
  });
});
