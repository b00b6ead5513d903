// Workflows inside `acphub acp`: advertised as slash commands, run in the editor's session with
// the gate asked of the editor (an SDK client), and one workflow presented as the agent.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  editorTracker,
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { CLI, tempDir, waitFor } from "../helpers/mock.js";

type Ev = Record<string, unknown>;
const tracker = editorTracker();
afterEach(() =>
  tracker.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const REVIEW = `name: review
description: look, confirm, check
input: { description: what to look at }
steps:
  - { id: look, agent: mock, prompt: "Look at {{ input }}" }
  - id: confirm
    approve: "Apply this plan?\\n{{ steps.look.output }}"
  - { id: check, run: "echo checked", preapproved: true }
`;

function setup() {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  mockConfig(home);
  mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
  writeFileSync(join(cwd, ".acphub", "workflows", "review.yaml"), REVIEW);
  return { home, cwd };
}

// An editor that answers every gate with `answer`, keeping the questions it was asked.
function editorAnswering(home: string, answer: string, args: string[] = []) {
  const asked: Ev[] = [];
  const e = tracker.track(
    startEditor(home, {
      args,
      onRequest: (method, params) => {
        asked.push({ method, ...params });
        return Promise.resolve({
          outcome: { outcome: "selected", optionId: answer },
        });
      },
    }),
  );
  return { e, asked };
}

const stepOf = (u: Ev) =>
  (u["_meta"] as { acphub?: { step?: string } } | undefined)?.acphub?.step;

describe("workflows in acphub acp", () => {
  it("advertises /review, runs it in the session and asks the gate of the editor", async () => {
    const { home, cwd } = setup();
    const { e, asked } = editorAnswering(home, "approve");
    const sessionId = await openSession(e, cwd);
    const commandsOf = () =>
      e.updates().flatMap((p) => {
        const u = p["update"] as Ev;
        return u["sessionUpdate"] === "available_commands_update"
          ? [u["availableCommands"] as Ev[]]
          : [];
      });
    expect(
      await waitFor(() =>
        commandsOf().some((list) => list.some((c) => c["name"] === "review")),
      ),
    ).toBe(true);
    const response = await e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/review the parser" }],
    });
    expect(response["stopReason"]).toBe("end_turn");
    const gate = asked.find(
      (a) => a["method"] === "session/request_permission",
    )!;
    expect((gate["toolCall"] as Ev)["title"]).toBe("confirm · approval");
    expect(JSON.stringify(gate["toolCall"])).toContain(
      "Apply this plan?\\nmock agent received: Look at the parser",
    );
    expect((gate["options"] as Ev[]).map((o) => o["kind"])).toEqual([
      "allow_once",
      "reject_once",
    ]);
    const updates = e
      .updates()
      .filter((p) => p["sessionId"] === sessionId)
      .map((p) => p["update"] as Ev);
    expect(updates.some((u) => u["sessionUpdate"] === "plan")).toBe(true);
    expect(
      updates.some(
        (u) =>
          u["sessionUpdate"] === "agent_message_chunk" && stepOf(u) === "look",
      ),
    ).toBe(true);
    const ends = updates.filter(
      (u) =>
        u["sessionUpdate"] === "tool_call_update" &&
        stepOf(u) &&
        !String(u["toolCallId"]).startsWith("look/"),
    );
    expect(ends.map((u) => [stepOf(u), u["status"]])).toEqual([
      ["look", "completed"],
      ["confirm", "completed"],
      ["check", "completed"],
    ]);
  });

  it("a rejected gate stops the run: the prompt fails with WORKFLOW_GATE_REJECTED, check never runs", async () => {
    const { home, cwd } = setup();
    const { e } = editorAnswering(home, "reject");
    const sessionId = await openSession(e, cwd);
    const error = await e.agent
      .request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/review x" }],
      })
      .then(
        () => undefined,
        (err: unknown) => err as { code: number; data: Ev },
      );
    expect(error?.code).toBe(-32001);
    expect(error?.data).toMatchObject({
      code: "WORKFLOW_GATE_REJECTED",
      step: "confirm",
    });
    const steps = e.updates().map((p) => stepOf(p["update"] as Ev));
    expect(steps).not.toContain("check");
  });

  it("acphub acp --workflow presents the workflow as the agent: each prompt is one run", async () => {
    const { home, cwd } = setup();
    const { e } = editorAnswering(home, "approve", ["--workflow", "review"]);
    const sessionId = await openSession(e, cwd);
    const response = await e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "the date parser" }],
    });
    expect(response["stopReason"]).toBe("end_turn");
    const look = e
      .updates()
      .map((p) => p["update"] as Ev)
      .find(
        (u) =>
          u["sessionUpdate"] === "tool_call_update" &&
          stepOf(u) === "look" &&
          u["status"] === "completed",
      );
    expect(JSON.stringify(look?.["content"])).toContain(
      "mock agent received: Look at the date parser",
    );
  });

  it("acphub acp --workflow starts no default agent: only the steps' agents, when they run", async () => {
    const { home, cwd } = setup();
    const marker = join(home, "default-started");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        defaultAgent: "marked",
        agents: {
          mock: { command: process.execPath, args: [CLI, "mock-agent"] },
          marked: {
            command: "sh",
            args: [
              "-c",
              `echo started >> "${marker}"; exec "${process.execPath}" "${CLI}" mock-agent`,
            ],
          },
        },
      }),
    );
    const { e } = editorAnswering(home, "approve", ["--workflow", "review"]);
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd, mcpServers: [] },
    );
    const response = await e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "the date parser" }],
    });
    expect(response["stopReason"]).toBe("end_turn");
    expect(JSON.stringify(e.updates())).toContain(
      "mock agent received: Look at the date parser",
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("session/cancel cancels the running step and stops the run", async () => {
    const { home, cwd } = setup();
    writeFileSync(
      join(cwd, ".acphub", "workflows", "slow.yaml"),
      `name: slow\nsteps:\n  - id: wait\n    agent: mock\n    prompt: '{"steps":[{"text":"waiting"},{"sleep":60000}]}'\n  - { id: after, run: "echo after", preapproved: true }\n`,
    );
    const { e } = editorAnswering(home, "approve");
    const sessionId = await openSession(e, cwd);
    const prompt = e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/slow" }],
    });
    const started = () =>
      e.updates().some((p) => {
        const u = p["update"] as Ev;
        return (
          u["sessionUpdate"] === "agent_message_chunk" && stepOf(u) === "wait"
        );
      });
    expect(await waitFor(started, 15_000)).toBe(true);
    await e.agent.notify("session/cancel", { sessionId });
    expect((await prompt)["stopReason"]).toBe("cancelled");
    const steps = e.updates().map((p) => stepOf(p["update"] as Ev));
    expect(steps).not.toContain("after");
  });

  it("MCP servers: config, workflow and step entries merged with the editor's, the editor's winning; HTTP left out for an agent without the capability", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    const mainFile = join(home, "main-sessions.json");
    const stepFile = join(home, "step-sessions.json");
    const mock = (file: string, servers: Ev[]) => ({
      command: process.execPath,
      args: [CLI, "mock-agent", "--sessions-file", file],
      mcpServers: servers,
    });
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        defaultAgent: "mock",
        agents: {
          mock: mock(mainFile, [
            { name: "docs", command: "config-docs" },
            { name: "main-only", command: "main-cmd" },
          ]),
          stepper: mock(stepFile, [
            { name: "docs", command: "config-docs" },
            { name: "cfg", command: "cfg-cmd", env: { A: "1" } },
          ]),
        },
      }),
    );
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(
      join(cwd, ".acphub", "workflows", "mcp.yaml"),
      `name: mcp
mcpServers:
  - { name: docs, command: workflow-docs }
  - { type: http, name: web, url: "http://127.0.0.1:9/mcp" }
steps:
  - id: one
    agent: stepper
    prompt: hi
    mcpServers: [{ name: stepsrv, command: step-cmd }]
`,
    );
    const { e } = editorAnswering(home, "approve");
    await e.agent.request("initialize", INIT);
    const editorDocs = {
      name: "docs",
      command: "editor-docs",
      args: [],
      env: [],
    };
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      {
        cwd,
        mcpServers: [editorDocs],
      },
    );
    const response = await e.agent.request<Ev>("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/mcp" }],
    });
    expect(response["stopReason"]).toBe("end_turn");
    const received = (file: string) =>
      (
        JSON.parse(readFileSync(file, "utf8")) as [
          string,
          { mcpServers: Ev[] },
        ][]
      ).map(([, s]) => s.mcpServers);
    const byName = (list: Ev[]) =>
      Object.fromEntries(list.map((m) => [m["name"], m]));
    const [main] = received(mainFile);
    expect(byName(main!)).toEqual({
      docs: editorDocs,
      "main-only": {
        name: "main-only",
        command: "main-cmd",
        args: [],
        env: [],
      },
    });
    const [step] = received(stepFile);
    expect(byName(step!)).toEqual({
      docs: editorDocs,
      cfg: {
        name: "cfg",
        command: "cfg-cmd",
        args: [],
        env: [{ name: "A", value: "1" }],
      },
      stepsrv: { name: "stepsrv", command: "step-cmd", args: [], env: [] },
    });
  });
});
