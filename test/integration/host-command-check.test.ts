// The command check where no OS sandbox runs, through a real agent process (issue 20, item 5,
// red-team findings as written): a fake `git` by path, the agent's env setting BASH_ENV, PATH
// or LD_PRELOAD, a line hidden after `cat <<<x`, `$(…)` in an unquoted here-document, and the
// spellings of home — each refused with the rule named, nothing run, and the turn goes on.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedMock, requests, type HostedAgent } from "../helpers/host.js";
import { steps, tempDir } from "../helpers/mock.js";

let W: string;
let fakeHome: string;
let pwned: string;
let hosted: HostedAgent;

beforeAll(async () => {
  W = tempDir("acphub-cmdcheck-");
  fakeHome = tempDir("acphub-fakehome-");
  writeFileSync(join(fakeHome, "keep.txt"), "keep");
  pwned = join(W, "PWNED");
  mkdirSync(join(W, "x"));
  const payload = `#!/bin/sh\necho pwned > ${pwned}\n`;
  writeFileSync(join(W, "x", "git"), payload, { mode: 0o755 });
  writeFileSync(join(W, "payload.sh"), `echo pwned > ${pwned}\n`);
  hosted = await hostedMock("approve-all", {
    sandbox: { mode: "off" },
    // Terminals see a fake home: a broken rule could only empty that.
    env: { PATH: process.env["PATH"], HOME: fakeHome },
  });
});
afterAll(() => hosted.close());

const term = (command: string, args: string[] = [], env?: object[]) => ({
  terminal: { command, args, ...(env ? { env } : {}) },
});

describe("the command check without an OS sandbox", () => {
  it("refuses every red-team spelling, runs nothing, and the turn ends normally", async () => {
    const attempts = [
      [
        term(join(W, "x", "git"), ["status"]),
        /"\/.*\/x\/git" is not in the allowed/,
      ],
      [term("/tmp/x/git"), /not in the allowed executables/],
      [
        term("ls", [], [{ name: "BASH_ENV", value: join(W, "payload.sh") }]),
        /loader-env.*BASH_ENV/,
      ],
      [
        term(
          "sh",
          ["-c", "true"],
          [{ name: "ENV", value: join(W, "payload.sh") }],
        ),
        /loader-env.*ENV/,
      ],
      [
        term("git", ["status"], [{ name: "PATH", value: join(W, "x") }]),
        /loader-env.*PATH/,
      ],
      [
        term("ls", [], [{ name: "LD_PRELOAD", value: "/tmp/x.so" }]),
        /loader-env.*LD_PRELOAD/,
      ],
      [
        term(`cat <<<x\n${join(W, "x", "git")}`),
        /not in the allowed executables/,
      ],
      [
        term(`cat <<EOF\n$(${join(W, "x", "git")})\nEOF`),
        /not in the allowed executables/,
      ],
      [term("rm -rf ~/*"), /rm-rf-root-or-home.*~\/\*/],
      [term('rm -rf "$HOME"'), /rm-rf-root-or-home.*\$HOME/],
      [term("rm -rf ${HOME}/"), /rm-rf-root-or-home/],
      [term("rm -rf ~/."), /rm-rf-root-or-home/],
      [term("rm -fr -- ~"), /rm-rf-root-or-home/],
    ] as const;
    const session = await hosted.agent.newSession({ cwd: W });
    const run = session.prompt(
      steps(...attempts.map(([step]) => step), { text: "after the refusals" }),
    );
    const events = [];
    for await (const e of run) events.push(e);
    const result = await run.result;
    const results = requests(events);
    attempts.forEach(([, rule], i) => {
      expect({ i, ok: results[i]?.ok }).toEqual({ i, ok: false });
      expect(results[i]!.error!.message).toMatch(rule);
    });
    expect(existsSync(pwned)).toBe(false);
    expect(readdirSync(fakeHome)).toEqual(["keep.txt"]);
    expect(JSON.stringify(events)).toContain("after the refusals");
    expect(result.stopReason).toBe("end_turn");
  });
});
