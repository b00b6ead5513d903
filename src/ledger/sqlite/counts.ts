// A session's counters (next seq, event count, bytes) as the SQLite ledger reads them (schema
// 9, issue 39). The columns on the session's row are a checkpoint: exact for the session's
// events before its `next_seq`. A batch no longer writes them (that rewrote the whole ~1 KB row,
// its request and settings included, once per session per batch: the cost that grew with the
// sessions streaming); they are written with the session's `updated_at` (./updated-at.ts), by
// a trim, a compaction and a fork. The events from `next_seq` on — a second of a
// stream at most while the hub runs, whatever it wrote before a kill -9, or what another
// process appended — are counted here at each read, from both ends of the log by their index
// on (session_id, seq). So every reader, this process's or another's, sees exact counters.
//
// Every write of the checkpoint keeps it exact for the events before its `next_seq`: the batch
// writes the counters it holds (exact inside its transaction: ./counter-cache.ts); a trim and
// a fork write them counted from the stored events, a compaction the exact ones changed by what
// it merged (./compaction-sql.ts); a deferred write only moves the checkpoint forward (a
// snapshot taken after an older one counted every event before it).

// One of the tail's figures over both tables: the events at or after the checkpoint.
const tail = (figure: string, table: string) =>
  `(SELECT ${figure} FROM ${table} WHERE session_id = s.id AND seq >= s.next_seq)`;
const both = (figure: string, sum: string) =>
  ["events", "event_journal"].map((t) => tail(figure, t)).join(sum);

/** The session columns a reader gets, besides the counters. A migration that adds a column
 * to `sessions` recreates the view with it. */
const COLUMNS = `s.id, s.agent, s.cwd, s.title, s.created_at, s.updated_at, s.state,
  s.agent_session_id, s.request, s.incomplete, s.settings, s.forked_from`;

/** The view every reader of a session's row reads (the session list and show, the batch
 * writer's counters): the row with its counters made exact. */
export const sessionRowsView = `DROP VIEW IF EXISTS session_rows;
  CREATE VIEW session_rows AS SELECT ${COLUMNS},
  s.event_count + ${both("COUNT(*)", " + ")} AS event_count,
  s.bytes + ${both("COALESCE(SUM(bytes), 0)", " + ")} AS bytes,
  MAX(s.next_seq, ${both("COALESCE(MAX(seq) + 1, 0)", ", ")}) AS next_seq
  FROM sessions s;`;
