// A batch's long runs of text chunks merged before the batch is spooled (issue 39, eighth
// round). Spooling each chunk's whole JSON and reading it back at the fold was most of what the
// SQLite ledger cost a single streaming session: the spool row's insert and its commit were
// 12 % of `acphub acp`'s busy time. A session with many updates in one batch (a streaming
// agent) has each run spooled as the one row the fold would have made of it (the compaction's
// planner, the merged text masked again); the fold then merges such rows with the next batch's
// as it merges chunks. A session with few updates in the batch (`serve` with many sessions: about
// three each) is spooled as it came: planning them costs more than the bytes it spares.
import { planUpdates, storedRunText, type MergedRun } from "../compaction.js";
import type { Counters } from "../counters.js";
import type { SpoolRow } from "./spool-rows.js";

/** A session's updates in a batch are merged when it holds at least this many. */
export const MERGE_FROM = 16;

// Each session's runs in the batch with at least MERGE_FROM updates, in seq order.
function runsOf(rows: SpoolRow[]): Map<string, MergedRun[]> {
  const updates = new Map<string, [number, string][]>();
  for (const row of rows) {
    if (row.kind !== "update") continue;
    const list = updates.get(row.sessionId);
    if (list) list.push([row.seq, row.text]);
    else updates.set(row.sessionId, [[row.seq, row.text]]);
  }
  const runs = new Map<string, MergedRun[]>();
  for (const [id, list] of updates)
    if (list.length >= MERGE_FROM) runs.set(id, planUpdates(list, 0));
  return runs;
}

/**
 * The rows to spool for a batch's `rows` (in seq order per session): each run merged into one
 * row at its last seq. The sessions' `counters` are made to count the rows spooled, as the
 * fold's count the rows it stores: one event per merged run, its merged text's bytes.
 */
export function mergedRows(
  rows: SpoolRow[],
  counters: Map<string, Counters>,
  mask: (text: string) => string,
): SpoolRow[] {
  const runs = runsOf(rows);
  if (runs.size === 0) return rows;
  const next = new Map<string, number>();
  const out: SpoolRow[] = [];
  for (const row of rows) {
    const list = runs.get(row.sessionId);
    const at = next.get(row.sessionId) ?? 0;
    const run = list?.[at];
    if (!run || row.seq < run.fromSeq || row.seq > run.lastSeq) {
      out.push(row);
      continue;
    }
    const c = counters.get(row.sessionId);
    if (row.seq < run.lastSeq) {
      if (c) {
        c.eventCount -= 1;
        c.bytes -= row.bytes;
      }
      continue;
    }
    const text = storedRunText(run, mask);
    const bytes = Buffer.byteLength(text);
    if (c) c.bytes += bytes - row.bytes;
    next.set(row.sessionId, at + 1);
    out.push({ ...row, text, bytes });
  }
  return out;
}
