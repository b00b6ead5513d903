// The command check where no OS sandbox runs (issue 20, item 5): allowlist entries are the
// files they resolve to, the agent's env and the script's own assignments may not set loader
// variables, and the home/root rule knows every spelling. Red-team spellings as written.
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
  refusal,
} from "../../src/host/command-policy.js";
import { tempDir } from "../helpers/mock.js";

const policy = { allow: DEFAULT_ALLOWED_COMMANDS, deny: DEFAULT_DENY_RULES };
const line = (script: string) => refusal(policy, script, [], {});

describe("the allowlist names files, not basenames", () => {
  const dir = tempDir("acphub-fakegit-");
  mkdirSync(join(dir, "x"));
  writeFileSync(join(dir, "x", "git"), "#!/bin/sh\necho fake\n", {
    mode: 0o755,
  });
  it.each([
    ["/tmp/x/git", []],
    [join(dir, "x", "git"), ["status"]],
    ["./x/git", []],
    ["sh", ["-c", `${dir}/x/git status`]],
    [`cd ${dir} && x/git status`, []],
    ["env", [`${dir}/x/git`]],
    ["xargs", ["-n", "1", `${dir}/x/git`]],
    ["find", [".", "-exec", `${dir}/x/git`, "{}", ";"]],
    ["bash", ["-lc", `${dir}/x/git status`]],
    ["sh", ["-e", "-o", "errexit", "-c", `${dir}/x/git`]],
    ["bash", ["--norc", "-c", "--", `${dir}/x/git`]],
    [`x=$(${dir}/x/git(){ :; }); ${dir}/x/git`, []],
  ] as const)("%s %j is refused", (command, args) => {
    expect(refusal(policy, command, [...args], { cwd: dir })).toMatch(
      /is not in the allowed executables/,
    );
  });
  it("the real one passes by name and by its own path", () => {
    expect(refusal(policy, "git", ["status"], { cwd: dir })).toBeUndefined();
    const real = (process.env["PATH"] ?? "")
      .split(":")
      .map((p) => join(p, "git"))
      .find((p) => {
        try {
          return statSync(p).isFile();
        } catch {
          return false;
        }
      });
    if (real) expect(refusal(policy, real, [], { cwd: dir })).toBeUndefined();
  });
  it("a function shadows a program only where no program of that name exists", () => {
    writeFileSync(join(dir, "x", "nc"), "#!/bin/sh\n", { mode: 0o755 });
    const search = { ...policy, searchPath: join(dir, "x") };
    const ctx = { cwd: dir };
    for (const script of [
      "nc(){ :; }; nc",
      "(nc(){ :; }); nc",
      "if false; then nc(){ :; }; fi; nc",
    ])
      expect(refusal(search, script, [], ctx)).toMatch(/"nc" is not/);
    expect(refusal(search, "build(){ ls; }; build", [], ctx)).toBeUndefined();
  });

  it("a link to an allowed program in another folder is not that program", () => {
    symlinkSync("/bin/ls", join(dir, "git"));
    expect(refusal(policy, "./git", [], { cwd: dir })).toMatch(
      /not in the allowed/,
    );
  });
});

describe("loader and shell-start variables", () => {
  it.each([
    "PATH",
    "BASH_ENV",
    "LD_PRELOAD",
    "ENV",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "RUBYOPT",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "DYLD_INSERT_LIBRARIES",
    "BASH_FUNC_ls%%",
    "LD_LIBRARY_PATH",
    "GIT_CONFIG_GLOBAL",
    "ZDOTDIR",
    "PS4",
    "JAVA_TOOL_OPTIONS",
    "npm_config_script_shell",
    "MAKEFLAGS",
  ])("the agent's env may not set %s", (name) => {
    expect(
      refusal(policy, "ls", [], { env: [{ name, value: "/tmp/x" }] }),
    ).toMatch(new RegExp(`rule "loader-env".*${name.replace(/[%$]/g, ".")}`));
  });
  it("unless the policy allows it by name; harmless names pass", () => {
    const env = [{ name: "PYTHONPATH", value: "src" }];
    expect(refusal(policy, "ls", [], { env })).toMatch(/loader-env/);
    expect(
      refusal({ ...policy, allowEnv: ["PYTHONPATH"] }, "ls", [], { env }),
    ).toBeUndefined();
    expect(
      refusal(policy, "ls", [], { env: [{ name: "CI", value: "1" }] }),
    ).toBeUndefined();
  });
  it.each([
    "PATH=/tmp/x git status",
    "export PATH=/tmp/x:$PATH; git",
    "LD_PRELOAD=/tmp/x.so ls",
    "env LD_PRELOAD=/tmp/x.so ls",
    "env BASH_ENV=/tmp/p bash -c true",
    "read PATH <<< /tmp/x; git",
    "printf -v PATH %s /tmp/x; git",
    "for PATH in /tmp/x; do git; done",
    ": ${PATH:=/tmp/x}",
    "(( PATH=0 )); git",
    "local -x LD_PRELOAD=/x",
    'export "$V"=1',
    "env -S 'nc -h'",
  ])("the script may not set one either: %s", (script) => {
    expect(line(script)).toMatch(/loader-env|cannot be checked/);
  });
  it("under the OS sandbox these are left to the sandbox", () => {
    expect(
      refusal(policy, "ls", [], {
        sandboxed: true,
        env: [{ name: "PATH", value: "/x" }],
      }),
    ).toBeUndefined();
  });
});

describe("rm-rf-root-or-home knows every spelling", () => {
  it.each([
    "rm -rf ~/*",
    'rm -rf "$HOME"',
    "rm -rf ${HOME}/",
    "rm -rf ~/.",
    "rm -fr -- ~",
    "rm -rf ~",
    "rm -rf /root",
    "rm -rf /",
    "rm -rf /*",
    "rm -r -f ~/",
    "rm -f -r $HOME/",
    "rm ~ -rf",
    "rm --recursive --force ~",
    "rm -Rf ~/..",
    "rm -rf ~root",
    "rm -rf //",
    "rm -rf /ho*",
    'rm -rf "${HOME}"/*',
    "rm -rf $(echo ~)",
    'rm -rf "$DIR"',
    "echo x; rm -rf ~/* && ls",
    "bash -c 'rm -rf ~'",
    `rm -rf ${homedir()}`,
  ])("%s", (script) => {
    expect(refusal(policy, script, [], { sandboxed: true })).toMatch(
      /deny rule "rm-rf-root-or-home"/,
    );
  });
  it("as argv too, and not for ordinary folders", () => {
    expect(refusal(policy, "rm", ["-fr", "--", "/root"], true)).toMatch(
      /rm-rf-root-or-home/,
    );
    expect(line("rm -rf ./build dist ~/project/tmp")).toBeUndefined();
    expect(line('rm -rf "$TMPDIR/x"')).toBeUndefined();
    expect(line("rm ~/notes.txt")).toBeUndefined();
  });
});
