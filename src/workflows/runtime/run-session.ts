// A workflow run's own ledger session.
import type { LedgerPort } from "../../engine/ports.js";
import type { Workflow } from "../load.js";
import type { ResumePoint } from "../journal.js";
import { ledgerJournal } from "./ports.js";

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

/** A run about to start or continue: what it runs, where, on what, from which step ends. */
export interface PlannedRun {
  workflow: Workflow;
  runId: string;
  cwd: string;
  input: string;
  recorded: ResumePoint["recorded"];
}

// A new run: its ledger session, then `run_start` in its journal (how `flow run`, a slash
// command and `flow resume` all find it).
export async function startRun(
  ledger: LedgerPort,
  run: PlannedRun,
  name: string,
  parentSession?: string,
): Promise<void> {
  const { runId, workflow, cwd, input } = run;
  await createRunSession(ledger, runId, workflow, cwd, input, parentSession);
  await ledgerJournal(ledger, runId).record({
    type: "run_start",
    runId,
    workflow: name,
    file: workflow.file,
    input,
    cwd,
  });
}
