// Reading a run back from its journal: what it was started with, and which step ends an
// interrupted run may take again instead of running them (completed steps, answered gates).
import { HubError } from "../shared/errors.js";
import type { JournalEntry } from "./ports.js";

type StepEnd = Extract<JournalEntry, { type: "step_end" }>;
type RunStart = Extract<JournalEntry, { type: "run_start" }>;

export interface ResumePoint {
  start: RunStart;
  recorded: StepEnd[];
}

// The run's start and the step ends to take again; a failed, cancelled or timed-out last
// step is run again. Refuses a run that already completed.
export function resumePoint(
  runId: string,
  entries: JournalEntry[],
): ResumePoint {
  const start = entries.find((e): e is RunStart => e.type === "run_start");
  if (!start)
    throw new HubError(
      "SESSION_NOT_FOUND",
      `no workflow run ${runId} (see acphub sessions list)`,
    );
  const lastEnd = [...entries].reverse().find((e) => e.type === "run_end");
  if (lastEnd?.type === "run_end" && lastEnd.status === "completed")
    throw new HubError("USAGE", `workflow run ${runId} already completed`);
  const recorded = entries.filter((e): e is StepEnd => e.type === "step_end");
  const last = recorded.at(-1);
  if (last && last.status !== "completed" && last.status !== "rejected")
    recorded.pop();
  return { start, recorded };
}
