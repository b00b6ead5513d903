// A batch's long runs of text chunks merged before the batch is spooled (issue 39, eighth
// round). Spooling each chunk's whole JSON and reading it back at the fold was most of what the
// SQLite ledger cost a single streaming session: the spool row's insert and its commit were
// 12 % of `acphub acp`'s busy time. A session with many updates in one batch (a streaming
// agent) has each run spooled as the one row the fold would have made of it (the compaction's
// planner, the merged text masked again); the fold then merges such rows with the next batch's
// as it merges chunks. A session with few updates in the batch (`serve` with many sessions: about
// three each) is spooled as it came: planning them costs more than the bytes it spares.
import {
  planCompaction,
  storedRunText,
  type MergedRun,
} from "../compaction.js";
import type { Counters } from "../counters.js";
import { spoolRow, type SpoolRow } from "./spool-rows.js";

/** A session's updates in a batch are merged when it holds at least this many. */
export const MERGE_FROM = 16;

/** The runs of text chunks in one session's rows (in seq order), as the compaction plans them. */
export const runsIn = (rows: readonly SpoolRow[]): MergedRun[] =>
  planCompaction(rows);

/**
 * One session's rows (in seq order) with each of its `runs` as one row at the run's last seq,
 * its merged text masked again (a run's seqs hold only its chunks: a gap ends a run). Used by
 * the batch before it is spooled and by the fold before it inserts.
 */
export function withRunsMerged(
  rows: readonly SpoolRow[],
  runs: readonly MergedRun[],
  mask: (text: string) => string,
): SpoolRow[] {
  const out: SpoolRow[] = [];
  let next = 0;
  for (const row of rows) {
    // (Read only while there is one: a read past the end threw the compiled code away.)
    const run = next < runs.length ? runs[next] : undefined;
    if (!run || row.seq < run.fromSeq || row.seq > run.lastSeq) out.push(row);
    else if (row.seq === run.lastSeq) {
      const text = storedRunText(run, mask);
      out.push(
        spoolRow(
          row.sessionId,
          row.seq,
          row.kind,
          text,
          Buffer.byteLength(text),
          row.at,
        ),
      );
      next += 1;
    }
  }
  return out;
}

/**
 * The rows to spool for a batch's `rows` (in seq order per session): the runs of each session
 * with at least MERGE_FROM updates merged. Those sessions' `counters` are made to count the rows
 * spooled, as the fold's count the rows it stores: one event per merged run, its text's bytes.
 */
export function mergedRows(
  rows: SpoolRow[],
  counters: Map<string, Counters>,
  mask: (text: string) => string,
): SpoolRow[] {
  // The sessions with MERGE_FROM updates (a batch of many sessions usually has none).
  const updates = new Map<string, number>();
  const merging = new Map<string, SpoolRow[]>();
  for (const row of rows) {
    if (row.kind !== "update") continue;
    const n = (updates.get(row.sessionId) ?? 0) + 1;
    updates.set(row.sessionId, n);
    if (n === MERGE_FROM) merging.set(row.sessionId, []);
  }
  if (merging.size === 0) return rows;
  for (const row of rows) merging.get(row.sessionId)?.push(row);
  // Per merged session, the rows it keeps, by seq.
  const kept = new Map<string, Map<number, SpoolRow>>();
  for (const [id, list] of merging) {
    const merged = withRunsMerged(list, runsIn(list), mask);
    if (merged.length === list.length) continue;
    kept.set(id, new Map(merged.map((r) => [r.seq, r])));
    const c = counters.get(id);
    if (!c) continue;
    c.eventCount -= list.length - merged.length;
    c.bytes += bytesOf(merged) - bytesOf(list);
  }
  if (kept.size === 0) return rows;
  const out: SpoolRow[] = [];
  for (const row of rows) {
    const session = kept.get(row.sessionId);
    const stays = session ? session.get(row.seq) : row;
    if (stays) out.push(stays);
  }
  return out;
}

/** The payload bytes of `rows`, as the session's counters count them. */
export const bytesOf = (rows: readonly SpoolRow[]) =>
  rows.reduce((n, r) => n + r.bytes, 0);
