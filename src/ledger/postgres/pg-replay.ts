// A replay's rows for EventStore.readReplayRows, on PostgreSQL, in one statement (one round trip,
// one snapshot): the few rows that are not plain updates (a prompt, a notice, a merged run…), and
// one aggregate of the whole session in which each plain update is its frame and each other row
// is a \x01 mark. JSON text never holds a raw control character (the json type refuses one), so
// the marks split the frames into the ranges between the other rows. Grouping the rows with a
// window and GROUP BY instead sorted the session twice and cost 17 ms for 5,000 events; this
// costs about 5 ms. `right(t, -1)`, not `substr(t, 2)`: substr counts the characters of the whole
// text first (1.6 ms of it).
import type { PgConnection } from "./pg-connection.js";

/** A plain update: an `update` whose text is a JSON object's, not `{}`, with no chunk list. */
const PLAIN = `kind = 'update' AND payload::text LIKE '{_%}' AND payload::text NOT LIKE '%]}'`;
const MARK = "\x01";

const QUERY = `SELECT seq, kind, payload::text, at, NULL FROM acphub_events
    WHERE session_id = $1 AND NOT (${PLAIN})
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, string_agg(
      CASE WHEN ${PLAIN} THEN $2::text || right(payload::text, -1) || E'}\\n' ELSE E'\\x01' END,
      '' ORDER BY seq)
    FROM acphub_events WHERE session_id = $1`;

/** Rows [seq, kind, text, at, frames]: the frames before the first other row (a row of nulls,
 *  when there are any), then each other row in seq order with the frames after it (or null). */
export async function pgReplayRows(
  db: Pick<PgConnection, "arrays">,
  sessionId: string,
  head: string,
): Promise<unknown[][]> {
  const rows = await db.arrays(QUERY, [sessionId, head]);
  const joined = rows.find((r) => r[0] === null)?.[4];
  const others = rows
    .filter((r) => r[0] !== null)
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  const ranges = typeof joined === "string" ? joined.split(MARK) : [""];
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
