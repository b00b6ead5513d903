// The question `flow run` asks about a step agent's request: step and agent by name (a parallel
// branch too), what it wants, agent text inert; y allows once, anything else refuses once.
import { describe, expect, it } from "vitest";
import {
  flowApprover,
  permissionQuestion,
} from "../../src/cli/flow-approver.js";
import type { WorkflowStep } from "../../src/workflows/schema.js";
import { EVIL, INERT } from "../helpers/evil-text.js";

const STEPS = [
  { id: "look", agent: "mock", prompt: "x" },
  {
    id: "review",
    parallel: [
      { agent: "codex", prompt: "a" },
      { id: "lint", agent: "claude", prompt: "b" },
    ],
  },
] as WorkflowStep[];

const OPTIONS = [
  { optionId: "yes-once", name: "Allow", kind: "allow_once" as const },
  { optionId: "no-once", name: "Reject", kind: "reject_once" as const },
];

function request(step: string, toolCall: Record<string, unknown>) {
  return {
    sessionId: "s",
    toolCall: { toolCallId: `${step}/x`, ...toolCall },
    options: OPTIONS,
    _meta: { acphub: { step } },
  };
}

describe("flow run's terminal approver", () => {
  it("names the step or branch and its agent, never the raw id", () => {
    const branch = permissionQuestion(
      STEPS,
      request("review.lint", {
        kind: "execute",
        rawInput: { command: "npm test" },
      }),
    );
    expect(branch).toContain("review.lint · claude asks: execute");
    expect(branch).toContain("command: npm test");
    expect(branch).not.toContain("/x");
    expect(
      permissionQuestion(STEPS, request("review.1", { title: "Read" })),
    ).toContain("review.1 · codex asks: Read");
    const evil = permissionQuestion(
      STEPS,
      request("look", { title: EVIL, kind: "edit" }),
    );
    expect(evil).toContain(`look · mock asks: ${INERT} (edit)`);
  });

  it("y allows once with the agent's own option id; anything else refuses", async () => {
    const signal = new AbortController().signal;
    const asked = (line: string) =>
      flowApprover(STEPS, () => Promise.resolve(line))(
        request("look", { title: "Edit" }),
        signal,
      );
    expect(await asked("y")).toEqual({
      outcome: "selected",
      optionId: "yes-once",
    });
    expect(await asked("")).toEqual({
      outcome: "selected",
      optionId: "no-once",
    });
  });
});
