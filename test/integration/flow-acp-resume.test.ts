// A run started as a slash command in `acphub acp` is its own ledger session: after kill -9 of
// acphub mid-step, `acphub flow resume RUN_ID` continues it without repeating finished steps.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { mockConfig, openSession, startEditor } from "../helpers/editor.js";
import { CLI, tempDir, waitFor } from "../helpers/mock.js";

type Ev = Record<string, unknown>;

const CRASH = `name: crash
steps:
  - { id: one, agent: first, prompt: "step one {{ input }}" }
  - { id: ok, approve: "go on?" }
  - { id: two, agent: slow, prompt: "step two" }
  - { id: three, run: "echo three done" }
`;

describe("resuming a run started in acphub acp", () => {
  it("after kill -9 mid-step, flow resume RUN_ID continues; step 1 and the gate are not repeated", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    const firstSessions = join(home, "first.json");
    const slow = join(home, "slow.json");
    writeFileSync(slow, JSON.stringify({ steps: [{ sleep: 60_000 }] }));
    const mock = (flags: string[]) => ({
      command: process.execPath,
      args: [CLI, "mock-agent", ...flags],
    });
    mockConfig(home, [], {
      agents: {
        mock: mock([]),
        first: mock(["--sessions-file", firstSessions]),
        slow: mock(["--scenario", slow]),
      },
    });
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(join(cwd, ".acphub", "workflows", "crash.yaml"), CRASH);
    const asked: string[] = [];
    const e = startEditor(home, {
      onRequest: (method) => {
        asked.push(method);
        return { outcome: { outcome: "selected", optionId: "approve" } };
      },
    });
    const sessionId = await openSession(e, cwd);
    void e.agent
      .request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/crash x" }],
      })
      .catch(() => undefined);
    const stepCall = () =>
      e
        .updates()
        .map((p) => p["update"] as Ev)
        .find((u) => String(u["toolCallId"]).endsWith("/two"));
    expect(await waitFor(() => stepCall() !== undefined, 15_000)).toBe(true);
    e.child.kill("SIGKILL");
    await e.exited;
    expect(asked).toEqual(["session/request_permission"]);
    const runId = String(stepCall()!["toolCallId"]).split("/")[0]!;

    writeFileSync(slow, JSON.stringify({ steps: [{ text: "two done" }] }));
    const r = await runCli(["flow", "resume", runId, "--json"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({
      type: "result",
      runId,
      status: "completed",
    });
    expect(r.stdout).toContain("two done");
    expect(r.stdout).toContain("three done");
    const saved = JSON.parse(readFileSync(firstSessions, "utf8")) as [
      string,
      { turns: number },
    ][];
    expect(saved.map(([, s]) => s.turns)).toEqual([1]);
  });
});
