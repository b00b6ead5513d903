// The spool's stored form (./spool.ts): a group-commit batch as one `event_spool` row, its
// events written one after another with their lengths, so that a batch costs one row and one
// string however many events it holds, and is read back without a parser.
import type { LedgerEventKind } from "../../engine/ledger-port.js";

/** One event as the spool holds it until folded into the event log. */
export interface SpoolRow {
  sessionId: string;
  seq: number;
  kind: LedgerEventKind;
  text: string;
  bytes: number;
  at: number;
}

/** A SpoolRow. Every row is made here, so that all have one shape: rows made by three object
 *  literals (a batch's, a spool row's read back, a merged run's spread) had three, and V8 threw
 *  away the compiled batch and fold code each time a new one came (issue 39, thirteenth round). */
export function spoolRow(
  sessionId: string,
  seq: number,
  kind: LedgerEventKind,
  text: string,
  bytes: number,
  at: number,
): SpoolRow {
  return { sessionId, seq, kind, text, bytes, at };
}

// Each event: `seq,kind,at,idLength,textLength;` then the session id and the text, as they are
// (lengths in UTF-16 units, as JavaScript and SQLite's text give them back).
/** A batch's events as one row's text. */
export function encodeRows(rows: SpoolRow[]): string {
  let body = "";
  for (const r of rows)
    body += `${r.seq},${r.kind},${r.at},${r.sessionId.length},${r.text.length};${r.sessionId}${r.text}`;
  return body;
}

/** A row's text as events; what cannot be read (a damaged row) ends it, `damaged` told where,
 * the events before kept. */
export function decodeRows(
  body: string,
  damaged: (at: number) => void,
): SpoolRow[] {
  const rows: SpoolRow[] = [];
  let at = 0;
  while (at < body.length) {
    const end = body.indexOf(";", at);
    if (end < 0) {
      damaged(at);
      break;
    }
    const [seq, kind, time, idLength, textLength] = body
      .slice(at, end)
      .split(",")
      .map((part, i) => (i === 1 ? part : Number(part)));
    const idEnd = end + 1 + Number(idLength);
    const textEnd = idEnd + Number(textLength);
    if (
      ![seq, time, idLength, textLength].every(Number.isSafeInteger) ||
      textEnd > body.length
    ) {
      damaged(at);
      break;
    }
    const text = body.slice(idEnd, textEnd);
    rows.push(
      spoolRow(
        body.slice(end + 1, idEnd),
        seq as number,
        kind as LedgerEventKind,
        text,
        Buffer.byteLength(text),
        time as number,
      ),
    );
    at = textEnd;
  }
  return rows;
}

/** A session's rows among a connection's spooled ones: how many, their bytes, the first's seq. */
export interface Held {
  count: number;
  bytes: number;
  seq: number;
}

/** Counts `row` in its session's Held. */
export function holdRow(sessions: Map<string, Held>, row: SpoolRow): void {
  const held = sessions.get(row.sessionId);
  if (!held)
    sessions.set(row.sessionId, { count: 1, bytes: row.bytes, seq: row.seq });
  else {
    held.count += 1;
    held.bytes += row.bytes;
  }
}
