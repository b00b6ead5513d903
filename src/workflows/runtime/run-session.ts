// A workflow run's own ledger session.
import type { LedgerPort } from "../../engine/ports.js";
import type { Workflow } from "../load.js";

// The run's own ledger session, where its journal goes (`flow resume RUN_ID` reads it); a run
// started inside another session (a slash command) names it as its parent.
export async function createRunSession(
  ledger: LedgerPort,
  runId: string,
  workflow: Workflow,
  cwd: string,
  input: string,
  parentSession?: string,
): Promise<void> {
  const now = Date.now();
  await ledger.createSession({
    id: runId,
    agent: `flow:${workflow.spec.name}`,
    cwd,
    title: `flow ${workflow.spec.name}${input ? `: ${input.slice(0, 60)}` : ""}`,
    createdAt: now,
    updatedAt: now,
    state: "active",
    agentSessionId: null,
    request: {
      _meta: {
        acphub: {
          workflow: workflow.spec.name,
          file: workflow.file,
          ...(parentSession ? { parentSession } : {}),
        },
      },
    },
  });
}
