// A terminal/create whose `command` is a whole shell line with no args (as Claude's adapter
// sends it) runs through `sh -c`, with every command inside the line checked.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textDelta } from "../../src/agents/prompt-content.js";
import { hostedMock, requests, type HostedAgent } from "../helpers/host.js";
import { tempDir } from "../helpers/mock.js";

let W: string;
let hosted: HostedAgent;
beforeAll(async () => {
  W = join(tempDir(), "work");
  mkdirSync(W);
  hosted = await hostedMock("approve-all", { sandbox: { mode: "off" } });
});
afterAll(() => hosted.close());

describe("a shell line in terminal/create", () => {
  it("runs as a script, with the agent's env entries and output limit", async () => {
    const target = join(W, "made-by-shell");
    const events = await hosted.turn(W, {
      terminal: {
        command: `echo SHELL-OK && touch ${target} && echo "$CLAUDECODE"`,
        env: [{ name: "CLAUDECODE", value: "1" }],
        outputByteLimit: 32000,
      },
    });
    const text = events.map(textDelta).join("");
    expect(text).toContain('terminal exit: {"exitCode":0,"signal":null}');
    expect(text).toContain('"output":"SHELL-OK\\n1\\n"');
    expect(existsSync(target)).toBe(true);
  });

  it("a path with folders runs too (ls /tmp/x/work)", async () => {
    writeFileSync(join(W, "listed.txt"), "x");
    const events = await hosted.turn(W, { terminal: { command: `ls ${W}` } });
    expect(events.map(textDelta).join("")).toContain("listed.txt");
  });

  it("refuses a line with a command outside the allowlist, naming it", async () => {
    const events = await hosted.turn(W, {
      terminal: { command: "echo ok && nc -h" },
    });
    expect(requests(events)[0]?.error?.message).toMatch(
      /^command refused: "nc" is not in the allowed executables/,
    );
  });

  it("a quoted ; inside python3 -c is not a command separator", async () => {
    const script =
      "import socket;s=socket.socket();s.close();print('py'+'-ok')";
    const events = await hosted.turn(
      W,
      { terminal: { command: `python3 -c "${script}"` } },
      { terminal: { command: "sh", args: ["-c", `python3 -c "${script}"`] } },
    );
    const text = events.map(textDelta).join("");
    expect(text.match(/"output":"py-ok\\n"/g)).toHaveLength(2);
  });
});
