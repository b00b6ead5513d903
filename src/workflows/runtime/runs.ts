// The workflow runs the ledger holds and where each one stands, for `acphub flow runs`: a run
// is a ledger session of its own (run-session.ts) whose journal says how far it got.
import type { LedgerPort, SessionRecord } from "../../engine/ports.js";
import { readJournal } from "./ports.js";
import { ownMetaOf } from "../../shared/hub-extension.js";

/** A run's state: how its journal ended, or `interrupted` when it has no end (crashed or running). */
export type RunState =
  | "completed"
  | "failed"
  | "rejected"
  | "waiting"
  | "cancelled"
  | "timeout"
  | "interrupted";

export interface RunRow {
  runId: string;
  workflow: string;
  state: RunState;
  /** The step the run stopped at, when it did not complete. */
  step?: string;
  cwd: string;
  title: string | null;
  updatedAt: number;
}

/** Sessions read per page while looking for runs. */
const PAGE_SESSIONS = 500;

// The run's workflow name, when the session is a workflow run's own.
function workflowOf(record: SessionRecord): string | undefined {
  const name: unknown = ownMetaOf(record.request["_meta"]).workflow;
  return record.agent.startsWith("flow:") && typeof name === "string"
    ? name
    : undefined;
}

// One run's row from its journal's last entry (a resumed run writes after its earlier end).
async function rowOf(
  ledger: LedgerPort,
  record: SessionRecord,
  workflow: string,
): Promise<RunRow> {
  const entries = await readJournal(ledger, record.id);
  const end = entries.at(-1);
  const row: RunRow = {
    runId: record.id,
    workflow,
    state: "interrupted",
    cwd: record.cwd,
    title: record.title,
    updatedAt: record.updatedAt,
  };
  if (end?.type !== "run_end") return row;
  return {
    ...row,
    state: end.status as RunState,
    ...(end.step ? { step: end.step } : {}),
  };
}

/** True when `flow resume` may take the run further (it neither completed nor was refused). */
export function unfinished(row: RunRow): boolean {
  return row.state !== "completed" && row.state !== "rejected";
}

// Every workflow run in the ledger, newest first as the ledger lists sessions.
export async function listRuns(ledger: LedgerPort): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  let cursor: string | null = null;
  do {
    const page = await ledger.listSessions({ cursor, limit: PAGE_SESSIONS });
    for (const record of page.sessions) {
      const workflow = workflowOf(record);
      if (workflow) rows.push(await rowOf(ledger, record, workflow));
    }
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}
