// A replay's rows for EventStore.readReplayRows, on PostgreSQL, in one statement (one round trip,
// one snapshot): the few rows that are not plain updates (a prompt, a notice, a merged run…), and
// one aggregate of the whole session in which each plain update is its text and each other row
// is a \x01 mark, elements separated by \x02. JSON text never holds a raw control character (the
// json type refuses one), so the marks split the updates into the ranges between the other rows.
// Grouping the rows with a window and GROUP BY instead sorted the session twice and cost 17 ms
// for 5,000 events; this costs about 5 ms. `right(t, -1)`, not `substr(t, 2)`: substr counts the
// characters of the whole text first (1.6 ms of it). One aggregate that carried the other rows
// too (read once, not twice) was faster only while they were small: 400 prompts of 5 KB among
// 4,000 updates made the server sort and copy them, 10 → 15 ms (issue 39, twelfth round).
import type { PgConnection } from "./pg-connection.js";

/** A plain update: an `update` whose text is a JSON object's, not `{}`, with no chunk list. A
 *  json text that starts with `{"` is a non-empty object's and ends with its brace (JSON.stringify
 *  wrote it: no whitespace around); starts_with costs less than half of `LIKE '{_%}'`. */
const PLAIN = `kind = 'update' AND starts_with(payload::text, '{"') AND payload::text NOT LIKE '%]}'`;
const MARK = "\x01";
/** Between two elements of the aggregate. */
const NEXT = "\x02";

// The server sends each plain update's text without its first brace, not its whole frame: the
// frame's head (the JSON-RPC envelope and the session id, ~110 bytes) is added here. Made by the
// server, the frames of a 5,000-update replay were 1.8 MB to receive (1.26 MB now), and
// session/load took a median 7 ms longer to answer (issue 39, eleventh round).
const QUERY = `SELECT seq, kind, payload::text, at, NULL FROM acphub_events
    WHERE session_id = $1 AND NOT (${PLAIN})
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, string_agg(
      CASE WHEN ${PLAIN} THEN right(payload::text, -1) ELSE E'\\x01' END,
      E'\\x02' ORDER BY seq)
    FROM acphub_events WHERE session_id = $1`;

// The aggregate's ranges between the marks, each the frames of its plain updates.
function framesBetweenMarks(joined: unknown, head: string): string[] {
  if (typeof joined !== "string") return [""];
  const ranges: string[] = [];
  let frames = "";
  for (const part of joined.split(NEXT)) {
    if (part === MARK) {
      ranges.push(frames);
      frames = "";
    } else frames += `${head}${part}}\n`;
  }
  ranges.push(frames);
  return ranges;
}

/** Rows [seq, kind, text, at, frames]: the frames before the first other row (a row of nulls,
 *  when there are any), then each other row in seq order with the frames after it (or null). */
export async function pgReplayRows(
  db: Pick<PgConnection, "arrays">,
  sessionId: string,
  head: string,
): Promise<unknown[][]> {
  const rows = await db.arrays(QUERY, [sessionId]);
  const joined = rows.find((r) => r[0] === null)?.[4];
  const others = rows
    .filter((r) => r[0] !== null)
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  const ranges = framesBetweenMarks(joined, head);
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
