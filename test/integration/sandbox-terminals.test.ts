// Sandboxed terminals keep the terminal contract: kill and the wall-clock timeout end every
// process inside, release frees the private temporary folder, output and exit codes pass through.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textDelta } from "../../src/agents/prompt-content.js";
import { hostedMock, requests } from "../helpers/host.js";
import { runCli } from "../helpers/cli.js";
import { mockConfig, openSession, startEditor } from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

// True when some live process's command line contains `marker`.
function running(marker: string): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(
        stat.lastIndexOf(")") + 2,
        stat.lastIndexOf(")") + 3,
      );
      if (cmd.includes(marker) && state !== "Z") return true;
    } catch {
      continue;
    }
  }
  return false;
}

describe("sandboxed terminals", () => {
  it("kill and timeout leave no process inside; release removes the temporary folder", async () => {
    const W = join(tempDir(), "work");
    mkdirSync(W);
    const hosted = await hostedMock("approve-all", {
      sandbox: { mode: "os" },
      terminalLimits: { timeoutMs: 1500 },
    });
    try {
      const events = await hosted.turn(
        W,
        {
          terminal: {
            command:
              "sleep 31.25 & sleep 31.25 & echo $TMPDIR; echo started; wait",
            killWhenOutput: "started",
          },
        },
        { terminal: { command: "sleep 32.5 & sleep 32.5; echo never" } },
        {
          terminal: {
            command: "sh",
            args: ["-c", "echo out; echo err >&2; exit 3"],
          },
        },
      );
      const text = events.map(textDelta).join("");
      const exits = [...text.matchAll(/terminal exit: (\{[^}]*\})/g)].map(
        (m) => m[1],
      );
      expect(exits).toEqual([
        '{"exitCode":null,"signal":"SIGKILL"}',
        '{"exitCode":null,"signal":"SIGKILL"}',
        '{"exitCode":3,"signal":null}',
      ]);
      expect(text).toContain('"output":"out\\nerr\\n"');
      expect(await waitFor(() => !running("31.25") && !running("32.5"))).toBe(
        true,
      );
      const tmp = /"output":"(\/[^\\]*)\\n/.exec(text)![1]!;
      expect(tmp).toMatch(/acphub-term-/);
      expect(existsSync(tmp)).toBe(false);
    } finally {
      await hosted.close();
    }
  });

  it("drops the allowlist only for terminals acphub runs itself, not an editor's", async () => {
    const W = tempDir();
    const asked: string[] = [];
    const editor = {
      handles: () => true,
      request: (method: string, params: Record<string, unknown>) => {
        asked.push(`${method} ${String(params["command"] ?? "")}`);
        return Promise.resolve({ terminalId: "ed-1" });
      },
    };
    const viaEditor = await hostedMock("approve-all", {
      sandbox: { mode: "os" },
      editor,
    });
    const own = await hostedMock("approve-all", { sandbox: { mode: "os" } });
    try {
      const refused = requests(
        await viaEditor.turn(W, { terminal: { command: "nc", args: ["-h"] } }),
      );
      expect(refused[0]?.error?.message).toMatch(/"nc" is not in the allowed/);
      expect(asked).toEqual([]);
      const ran = requests(
        await own.turn(W, { terminal: { command: "nc", args: ["-h"] } }),
      );
      expect(ran[0]?.error?.message ?? "").not.toMatch(/not in the allowed/);
    } finally {
      await viaEditor.close();
      await own.close();
    }
  });

  it("leaves no placeholder files in acphub's folder once a command has ended", async () => {
    // bubblewrap makes empty mount points for the absent dotfiles it protects in acphub's
    // working folder (.bashrc, .gitconfig, .mcp.json, …); they must go with the command.
    const W = tempDir();
    // The mock's own shell (outside any sandbox) looks at the folder after the terminal ended.
    const home = tempDir();
    mockConfig(home, ["--own-shell"]);
    const r = await runCli(
      [
        "run",
        "--permissions",
        "approve-all",
        steps(
          { terminal: { command: "ls -A" } },
          { shell: "ls -A; echo listed" },
        ),
      ],
      { cwd: W, env: { ACPHUB_HOME: home } },
    );
    const inside = /"output":"([^"]*)"/.exec(r.stdout)?.[1] ?? "";
    expect(inside).toContain(".bashrc");
    const after = /shell exit: 0; output: "([^"]*)"/.exec(r.stdout)?.[1];
    expect(after).toBe("listed\\n");
    expect(readdirSync(W)).toEqual([]);
  });

  it("acphub acp runs a terminal in the sandbox when the editor does not run terminals", async () => {
    const home = tempDir();
    const ws = tempDir();
    mockConfig(home, [], { permissions: { mode: "approve-all" } });
    const editor = startEditor(home, {
      env: { MY_SECRET_TOKEN: "acp-secret-1" },
    });
    const sessionId = await openSession(editor, ws);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [
        {
          type: "text",
          text: steps({
            terminal: {
              command:
                "cat /proc/*/environ | tr '\\0' '\\n' | grep -c SECRET; ps -eo args",
            },
          }),
        },
      ],
    });
    const said = JSON.stringify(editor.updates());
    expect(said).toContain("terminal exit");
    expect(said).toContain("bwrap");
    expect(said).not.toContain("acp-secret-1");
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  });
});
