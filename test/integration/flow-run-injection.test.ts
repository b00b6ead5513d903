// Workflow values never become shell text, through the real CLI and the mock agent: the issue's
// reproduction (an agent replying `ok"; touch PWNED; echo "` before a `run:` that pastes its
// output) is refused by `flow validate` and at load and creates nothing; the same data through
// the step's variable or the `shell` filter is printed, never run. Shell steps meet the
// permission policy: a literal command the file pre-approves runs, anything else is asked (or
// refused when nobody can answer), in approve-reads too.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import {
  editorTracker,
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

type Ev = Record<string, unknown>;
const PAYLOAD = 'ok"; touch PWNED; echo "';
const AGENT_STEP = `  - { id: s, agent: mock, prompt: ${JSON.stringify(steps({ text: PAYLOAD }))} }\n`;
const workflow = (run: string, extra = "") =>
  `name: w\nsteps:\n${AGENT_STEP}  - id: t\n    run: ${JSON.stringify(run)}\n${extra}`;

// A project with the workflow; its home's config (mock agent, this permission mode).
function project(text: string, mode?: string) {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  const dir = join(cwd, ".acphub", "workflows");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "w.yaml"), text);
  mockConfig(home, [], mode ? { permissions: { mode } } : {});
  return { home, cwd, file: join(dir, "w.yaml") };
}

// The content text of the update that ended step `id` of a `flow run --json`.
function stepEnd(
  stdout: string,
  id: string,
): { status: unknown; text: string } {
  const end = jsonLines(stdout)
    .filter((e) => e["type"] === "session_update")
    .map((e) => e["update"] as Ev)
    .find(
      (u) =>
        u["sessionUpdate"] === "tool_call_update" &&
        String(u["toolCallId"]).endsWith(`/${id}`) &&
        (u["status"] === "completed" || u["status"] === "failed"),
    );
  return { status: end?.["status"], text: JSON.stringify(end?.["content"]) };
}

const flowRun = (p: { home: string; cwd: string }) =>
  runCli(["flow", "run", "w", "--json", "-C", p.cwd], {
    home: p.home,
    timeoutMs: 60_000,
  });

describe("workflow values never become shell text", () => {
  it("the issue's reproduction is refused by validate and at load, and creates nothing", async () => {
    const p = project(workflow('echo "agent said {{ steps.s.output }}"'));
    const v = await runCli(["flow", "validate", p.file], { home: p.home });
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(
      `${p.file}:5:10: run: {{ steps.s.output }} would paste data into the command text: use "$ACPHUB_STEP_S_OUTPUT" instead`,
    );
    const r = await flowRun(p);
    expect(r.code).toBe(2);
    expect(existsSync(join(p.cwd, "PWNED"))).toBe(false);
  });

  it("through the step's variable the reply is printed, not run (pre-approved literal command)", async () => {
    const p = project(
      workflow(
        'echo "agent said $ACPHUB_STEP_S_OUTPUT"',
        "    preapproved: true\n",
      ),
    );
    const r = await flowRun(p);
    expect(r.code).toBe(0);
    expect(stepEnd(r.stdout, "t").text).toContain(
      JSON.stringify(`agent said ${PAYLOAD}`).slice(1, -1),
    );
    expect(existsSync(join(p.cwd, "PWNED"))).toBe(false);
  });

  it("through the shell filter the reply is one word, printed, not run", async () => {
    const p = project(
      workflow("echo agent said {{ steps.s.output | shell }}"),
      "approve-all",
    );
    const r = await flowRun(p);
    expect(r.code).toBe(0);
    expect(stepEnd(r.stdout, "t").text).toContain(
      JSON.stringify(`agent said ${PAYLOAD}`).slice(1, -1),
    );
    expect(existsSync(join(p.cwd, "PWNED"))).toBe(false);
  });
});

describe("workflow shell steps meet the permission policy", () => {
  it("approve-reads with nobody to ask refuses a command the file did not pre-approve", async () => {
    const p = project(workflow("touch MADE"), "approve-reads");
    const r = await flowRun(p);
    expect(r.code).not.toBe(0);
    const end = stepEnd(r.stdout, "t");
    expect(end.status).toBe("failed");
    expect(end.text).toMatch(
      /refused by policy: approve-reads mode: nobody to ask/,
    );
    expect(existsSync(join(p.cwd, "MADE"))).toBe(false);
  });

  const tracker = editorTracker();
  afterEach(() =>
    tracker.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
  );

  it.each([
    ["allow_once", true],
    ["reject_once", false],
  ])(
    "approve-reads in acphub acp asks the editor (answer %s)",
    async (answer, made) => {
      const p = project(workflow("touch MADE"), "approve-reads");
      const asked: Ev[] = [];
      const e = tracker.track(
        startEditor(p.home, {
          onRequest: (method, params) => {
            asked.push({ method, ...params });
            return { outcome: { outcome: "selected", optionId: answer } };
          },
        }),
      );
      await e.agent.request("initialize", INIT);
      const { sessionId } = await e.agent.request<{ sessionId: string }>(
        "session/new",
        { cwd: p.cwd, mcpServers: [] },
      );
      await e.agent
        .request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "/w" }],
        })
        .catch(() => undefined);
      const questions = asked.filter(
        (q) => q["method"] === "session/request_permission",
      );
      expect(questions).toHaveLength(1);
      expect(JSON.stringify(questions[0]!["toolCall"])).toContain("touch MADE");
      expect(existsSync(join(p.cwd, "MADE"))).toBe(made);
    },
  );
});
