// A replay's rows for EventStore.readReplayRows, on PostgreSQL, in one statement (one round trip,
// one snapshot): the few rows that are not plain updates (a prompt, a notice…), and aggregates of
// the session, one per BUCKET seqs, in which each plain update is its text and each other row is
// a \x01 mark, elements separated by \x02. JSON text never holds a raw control character (the
// json type refuses one), so the marks split the updates into the ranges between the other rows.
// Grouping the ranges with a window and GROUP BY sorted the session twice (17 ms for 5,000
// events); one aggregate that carried the other rows too was slower once they were many prompts
// of a few KB (the server sorted and copied them). One aggregate for the whole session was one
// 1.26 MB row for 5,000 updates, which the server's fresh buffers and the client's parse paid for;
// a merged reply's chunk list kept out by `NOT LIKE '%]}'` read every text to its end twice: it
// is cut off here, as `read` does (issue 39, thirteenth round: server CPU 8.1 → 5.7 ms).
import { readStored } from "../run-cut.js";
import type { PgConnection } from "./pg-connection.js";

/** A plain update: an `update` whose text is a JSON object's, not `{}`. A json text that starts
 *  with `{"` is a non-empty object's and ends with its brace (JSON.stringify wrote it: no
 *  whitespace around). */
const PLAIN = `kind = 'update' AND starts_with(payload::text, '{"')`;
const MARK = "\x01";
/** Between two elements of an aggregate. */
const NEXT = "\x02";
/** Seqs per aggregate: about 40 KB of text for the short chunks of a streamed reply. */
const BUCKET = 256;

// The server sends each plain update's text, not its whole frame: the frame's head (the JSON-RPC
// envelope and the session id, ~110 bytes) is added here. Made by the server, the frames of a
// 5,000-update replay were 1.8 MB to receive, and session/load took a median 7 ms longer to
// answer (issue 39, eleventh round).
const QUERY = `SELECT seq, kind, payload::text, at, NULL FROM acphub_events
    WHERE session_id = $1 AND NOT (${PLAIN})
  UNION ALL
  SELECT NULL, NULL, NULL, seq / ${BUCKET}, string_agg(
      CASE WHEN ${PLAIN} THEN payload::text ELSE E'\\x01' END, E'\\x02' ORDER BY seq)
    FROM acphub_events WHERE session_id = $1 GROUP BY seq / ${BUCKET}`;

// The aggregates' ranges between the marks, each the frames of its plain updates (a merged
// run's without its chunk list, as `read` gives it).
function framesBetweenMarks(aggregates: unknown[][], head: string): string[] {
  const ranges: string[] = [];
  let frames = "";
  for (const row of aggregates)
    for (const part of String(row[4]).split(NEXT)) {
      if (part === MARK) {
        ranges.push(frames);
        frames = "";
      } else frames += `${head}${readStored(part, 0, 0).slice(1)}}\n`;
    }
  ranges.push(frames);
  return ranges;
}

const bySeq = (a: unknown[], b: unknown[]) => Number(a[0]) - Number(b[0]);
const byBucket = (a: unknown[], b: unknown[]) => Number(a[3]) - Number(b[3]);

/** Rows [seq, kind, text, at, frames]: the frames before the first other row (a row of nulls,
 *  when there are any), then each other row in seq order with the frames after it (or null). */
export async function pgReplayRows(
  db: Pick<PgConnection, "arrays">,
  sessionId: string,
  head: string,
): Promise<unknown[][]> {
  const rows = await db.arrays(QUERY, [sessionId]);
  const others = rows.filter((r) => r[0] !== null).sort(bySeq);
  const aggregates = rows.filter((r) => r[0] === null).sort(byBucket);
  const ranges = framesBetweenMarks(aggregates, head);
  if (ranges.length !== others.length + 1)
    throw new Error(
      `replay of ${sessionId}: ${others.length} rows but ${ranges.length - 1} marks`,
    );
  const out: unknown[][] = [];
  if (ranges[0]) out.push([null, null, null, null, ranges[0]]);
  others.forEach((row, i) =>
    out.push([...row.slice(0, 4), ranges[i + 1] || null]),
  );
  return out;
}
