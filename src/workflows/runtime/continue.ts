// Workflow runs started in an editor's session, found again after acphub was killed mid-run:
// each run leaves a mark in the editor's session, and a marked run whose journal has no end
// was interrupted, so the session's next prompt continues it (flow-commands.ts).
import type { LedgerPort } from "../../engine/ports.js";
import type { JournalEntry } from "../ports.js";
import { readJournal } from "./ports.js";

/** A run a crash interrupted: its id and what its journal kept. */
export interface InterruptedRun {
  runId: string;
  workflow: string;
  entries: JournalEntry[];
}

interface RunMark {
  type: "run";
  runId: string;
  workflow: string;
}

// The last run started in the session, from the mark it left there.
async function lastMark(
  ledger: LedgerPort,
  sessionId: string,
): Promise<RunMark | undefined> {
  const marks = (await ledger.events(sessionId)).filter(
    (e) => e.kind === "workflow" && e.payload["type"] === "run",
  );
  return marks.at(-1)?.payload as RunMark | undefined;
}

/** The interrupted runs of editor sessions, looked for once per session in this process. */
export class InterruptedRuns {
  /** Sessions whose runs this process knows: none of them is waiting to continue. */
  private readonly settled = new Set<string>();

  constructor(private readonly ledger: LedgerPort) {}

  // Leaves a run's mark in the session it runs in.
  async mark(
    sessionId: string,
    runId: string,
    workflow: string,
  ): Promise<void> {
    this.settled.add(sessionId);
    const mark: RunMark = { type: "run", runId, workflow };
    await this.ledger.append(sessionId, "workflow", { ...mark });
  }

  // The session's interrupted run, if any, without taking it.
  async find(sessionId: string): Promise<InterruptedRun | undefined> {
    if (this.settled.has(sessionId)) return undefined;
    const mark = await lastMark(this.ledger, sessionId);
    const entries = mark ? await readJournal(this.ledger, mark.runId) : [];
    const started = entries.some((e) => e.type === "run_start");
    if (!mark || !started || entries.some((e) => e.type === "run_end")) {
      this.settled.add(sessionId);
      return undefined;
    }
    return { runId: mark.runId, workflow: mark.workflow, entries };
  }

  // The session's interrupted run, taken: asked again, it is not there.
  async take(sessionId: string): Promise<InterruptedRun | undefined> {
    const run = await this.find(sessionId);
    this.settled.add(sessionId);
    return run;
  }
}
