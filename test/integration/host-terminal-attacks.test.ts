// Terminals for a real agent process: denied commands, bounded output, timeouts, kill and
// release with nothing left behind, filtered environments.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { textDelta } from "../../src/agents/prompt-content.js";
import { hostedMock, requests, type HostedAgent } from "../helpers/host.js";
import { groupGone, tempDir, waitFor } from "../helpers/mock.js";

let W: string;
let hosted: HostedAgent;
beforeAll(async () => {
  W = join(tempDir(), "work");
  mkdirSync(W);
  hosted = await hostedMock("approve-all", {
    terminalLimits: { timeoutMs: 60_000 },
  });
});
afterAll(() => hosted.close());

const term = (
  command: string,
  args: string[] = [],
  extra: Record<string, unknown> = {},
) => ({
  terminal: { command, args, ...extra },
});
const sh = (script: string, extra: Record<string, unknown> = {}) =>
  term("sh", ["-c", script], extra);

// The mock reports `terminal exit: {...}; output: {...}` as one line of text: parse it back.
function terminalReports(events: RunEvent[]) {
  const text = events.map(textDelta).join("");
  return [...text.matchAll(/^terminal exit: (.*?); output: (.*)$/gm)].map(
    (m) => ({
      exit: JSON.parse(m[1]!) as {
        exitCode: number | null;
        signal: string | null;
      },
      output: JSON.parse(m[2]!) as { output: string; truncated: boolean },
    }),
  );
}

describe("denied commands", () => {
  it("refuses each with an error naming the rule, and runs nothing", async () => {
    // Each attempt is inert even if its rule failed (preserve-root, --version, --help, paths
    // that do not exist): a broken policy must fail this test, not damage the machine.
    const attempts = [
      term("rm", ["-rf", "/", "--version"]),
      term("rm", ["-rf", "~"]),
      term("rm", ["-fr", "/*", "--version"]),
      term("rm", ["--no-preserve-root", "-rf", "/", "--version"]),
      sh("rm -rf / --version"),
      term("bash", ["-c", "curl -fsSL file:///dev/null | sh"]),
      sh("wget -qO- file:///dev/null | bash"),
      term("mkfs.ext4", ["/nonexistent/acphub-image"]),
      term("dd", ["if=/dev/null", "of=/dev/null", "count=0"]),
      sh("true || :(){ :|:& };:"),
      term("sudo", ["--version"]),
      sh("sudo --version"),
      term("nc", ["-h"]),
      sh("nc -h"),
      term("python3", ["-c", "print('rm -rf /')"]),
      term("shutdown", ["--help"]),
      term("chmod", ["-R", "777", "/", "--no-such-option"]),
      sh("test -r /etc/shadow"),
      sh("echo x > /dev/sdz-acphub-nonexistent/x"),
      term("ssh", ["-V"]),
      term("curl", ["--version"]),
      sh("echo ok; $(nc -h)"),
    ];

    const events = await hosted.turn(W, ...attempts);
    const creates = requests(events).filter(
      (r) => r.method === "terminal/create",
    );
    expect(creates).toHaveLength(attempts.length);
    creates.forEach((c, i) => {
      expect({ i, ok: c.ok }).toEqual({ i, ok: false });
      expect(c.error?.message).toMatch(
        /^command refused( by deny rule "[a-z-]+"|: "[^"]+" is not in the allowed executables)/,
      );
    });
    expect(
      requests(events).filter((r) => r.method !== "terminal/create"),
    ).toEqual([]);
    const rules = creates.map((c) =>
      /deny rule "([a-z-]+)"|"([^"]+)" is not in/
        .exec(c.error!.message)!
        .slice(1)
        .find(Boolean),
    );
    expect(rules).toEqual([
      "rm-rf-root-or-home",
      "rm-rf-root-or-home",
      "rm-rf-root-or-home",
      "rm-no-preserve-root",
      "rm-rf-root-or-home",
      "download-piped-to-shell",
      "download-piped-to-shell",
      "mkfs",
      "dd-to-device",
      "fork-bomb",
      "privilege-escalation",
      "privilege-escalation",
      "nc",
      "nc",
      "rm-rf-root-or-home",
      "power-off",
      "chmod-root-recursive",
      "system-credentials",
      "write-to-disk-device",
      "ssh",
      "curl",
      "nc",
    ]);
  });

  it("a cwd outside the roots is refused", async () => {
    const events = await hosted.turn(W, term("ls", [], { cwd: "/etc" }));
    expect(requests(events)[0]?.error?.message).toMatch(
      /\/etc is outside the session's allowed roots/,
    );
  });
});

describe("terminal output, timeouts, kill and release", () => {
  it("keeps only the last bytes of 100 MiB of output, with bounded memory", async () => {
    const before = process.memoryUsage().rss;
    const events = await hosted.turn(
      W,
      sh("head -c 104857600 /dev/zero | tr '\\0' a; echo END", {
        outputByteLimit: 1024,
      }),
    );
    const [report] = terminalReports(events);
    expect(report!.exit).toEqual({ exitCode: 0, signal: null });
    expect(report!.output.truncated).toBe(true);
    expect(Buffer.byteLength(report!.output.output)).toBeLessThanOrEqual(1024);
    expect(report!.output.output).toBe("a".repeat(1020) + "END\n");
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("interleaves stdout and stderr and reports the exit code", async () => {
    const [report] = terminalReports(
      await hosted.turn(W, sh("echo out; echo err >&2; exit 3")),
    );
    expect(report!.exit).toEqual({ exitCode: 3, signal: null });
    expect(report!.output.output).toBe("out\nerr\n");
    expect(report!.output.truncated).toBe(false);
  });

  it("kills the whole group at the wall-clock timeout", async () => {
    const quick = await hostedMock("approve-all", {
      terminalLimits: { timeoutMs: 300 },
    });
    try {
      const started = Date.now();
      const [report] = terminalReports(
        await quick.turn(W, sh("echo $$; sleep 30 & sleep 30")),
      );
      expect(report!.exit.signal).toBe("SIGKILL");
      expect(Date.now() - started).toBeLessThan(15_000); // not the 30 s sleeps
      const pid = Number(report!.output.output.trim());
      expect(await waitFor(() => groupGone(pid))).toBe(true);
    } finally {
      await quick.close();
    }
  });

  it("kill ends the group with its background children; release frees the id", async () => {
    const [report] = terminalReports(
      await hosted.turn(
        W,
        sh("sleep 30 & sleep 30 & echo $$; wait", { killWhenOutput: "\n" }),
      ),
    );
    expect(hosted.host.terminals.count()).toBe(0);
    expect(report!.exit.signal).toBe("SIGKILL");
    const pid = Number(report!.output.output.trim());
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });

  it("ending the session's agent releases its terminals, leaving no process", async () => {
    const h = await hostedMock("approve-all");
    const session = await h.agent.newSession({ cwd: W });
    const script = {
      terminal: { command: "sh", args: ["-c", "echo $$; sleep 30"] },
    };
    const run = session.prompt(JSON.stringify({ steps: [script] }));
    let pid = 0;
    for await (const event of run) {
      const content = JSON.stringify(event).match(/"terminalId":"(term-\d+)"/);
      if (!content) continue;
      await waitFor(() =>
        h.host.terminals.output(session.id, content[1]).output.includes("\n"),
      );
      pid = Number(
        h.host.terminals.output(session.id, content[1]).output.trim(),
      );
      break;
    }
    expect(groupGone(pid)).toBe(false);
    expect(h.host.terminals.count(session.id)).toBe(1);
    await h.close();
    await expect(run.result).rejects.toMatchObject({ code: "CLOSED" });
    expect(h.host.terminals.count()).toBe(0);
    expect(await waitFor(() => groupGone(pid))).toBe(true);
  });
});
