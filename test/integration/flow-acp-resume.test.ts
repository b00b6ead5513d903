// A run started in an `acphub acp` session is its own ledger session: after kill -9 of acphub
// mid-step, the session's next prompt (once loaded again) or `acphub flow resume RUN_ID`
// continues it without repeating finished steps.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { crashProject } from "../helpers/crash-project.js";
import {
  INIT,
  openSession,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import { waitFor } from "../helpers/mock.js";

type Ev = Record<string, unknown>;

const CRASH = `name: crash
steps:
  - { id: one, agent: first, prompt: "step one {{ input }}" }
  - { id: ok, approve: "go on?" }
  - { id: two, agent: slow, prompt: "step two" }
  - { id: three, run: "echo three done", preapproved: true }
`;

// An editor that approves every gate, counting the questions.
function approvingEditor(home: string, asked: string[], args: string[] = []) {
  return startEditor(home, {
    args,
    onRequest: (method) => {
      asked.push(method);
      return { outcome: { outcome: "selected", optionId: "approve" } };
    },
  });
}

const stepCall = (e: TestEditor, id: string) =>
  e
    .updates()
    .map((p) => p["update"] as Ev)
    .find((u) => String(u["toolCallId"]).endsWith(`/${id}`));

// Starts the crash workflow in a new session, kills acphub -9 in step two; the session id.
async function interrupted(
  home: string,
  cwd: string,
  asked: string[],
  args: string[],
  text: string,
): Promise<{ sessionId: string; runId: string }> {
  const e = approvingEditor(home, asked, args);
  const sessionId = await openSession(e, cwd);
  void e.agent
    .request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    })
    .catch(() => undefined);
  expect(await waitFor(() => stepCall(e, "two") !== undefined, 15_000)).toBe(
    true,
  );
  e.child.kill("SIGKILL");
  await e.exited;
  const runId = String(stepCall(e, "two")!["toolCallId"]).split("/")[0]!;
  return { sessionId, runId };
}

describe("the next prompt in an editor's session continues a run acphub was killed in", () => {
  for (const [how, args, text] of [
    ["a slash command", [], "/crash x"],
    ["acp --workflow", ["--workflow", "crash"], "x"],
  ] as const)
    it(`${how}: after kill -9 mid-step, session/load then any prompt continues the run from its journal`, async () => {
      const p = crashProject(CRASH);
      const asked: string[] = [];
      const { sessionId, runId } = await interrupted(
        p.home,
        p.cwd,
        asked,
        [...args],
        text,
      );
      expect(asked).toEqual(["session/request_permission"]);
      writeFileSync(p.slow, JSON.stringify({ steps: [{ text: "two done" }] }));

      const e = approvingEditor(p.home, asked, [...args]);
      try {
        await e.agent.request("initialize", INIT);
        await e.agent.request("session/load", {
          sessionId,
          cwd: p.cwd,
          mcpServers: [],
        });
        const before = e.updates().length;
        const response = await e.agent.request<Ev>("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "go on" }],
        });
        expect(response["stopReason"]).toBe("end_turn");
        const after = JSON.stringify(e.updates().slice(before));
        expect(after).toContain(`continues workflow run ${runId}`);
        expect(after).toContain("two done");
        expect(after).toContain("three done");
        expect(asked).toEqual(["session/request_permission"]);
        expect(p.turnsOfFirst()).toEqual([1]);
        // The run ended: the prompt after it is a new run (slash: the agent's turn).
        const again = await e.agent.request<Ev>("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "/crash y" }],
        });
        expect(again["stopReason"]).toBe("end_turn");
        expect(p.turnsOfFirst()).toEqual([1, 1]);
      } finally {
        e.child.kill("SIGKILL");
      }
      const r = await runCli(["flow", "resume", runId], { home: p.home });
      expect(r.stderr).toContain("already completed");
    });
});

describe("resuming a run started in acphub acp", () => {
  it("after kill -9 mid-step, flow resume RUN_ID continues; step 1 and the gate are not repeated", async () => {
    const p = crashProject(CRASH);
    const asked: string[] = [];
    const { runId } = await interrupted(p.home, p.cwd, asked, [], "/crash x");
    expect(asked).toEqual(["session/request_permission"]);

    writeFileSync(p.slow, JSON.stringify({ steps: [{ text: "two done" }] }));
    const r = await runCli(["flow", "resume", runId, "--json"], {
      home: p.home,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({
      type: "result",
      runId,
      status: "completed",
    });
    expect(r.stdout).toContain("two done");
    expect(r.stdout).toContain("three done");
    expect(p.turnsOfFirst()).toEqual([1]);
  });
});
