// `_acphub/history`: a session's history a page at a time, read from the ledger, for a client
// that shows a long session without replaying all of it (the web page): the newest page first,
// then older pages before a cursor as the reader scrolls up, or newer ones after a cursor. Each
// update carries its sequence number, as on session/load; a session/resume with the last page's
// seq as `afterSeq` then continues live without a gap. Editors keep session/load's whole replay.
import type { SessionHub } from "./session-hub.js";
import type { PageOptions, StoredEvent } from "../engine/ledger-port.js";
import type { SessionRecord } from "../engine/ports.js";
import { stampedParams } from "../engine/wire-updates.js";
import type { Params } from "../protocol/raw.js";
import { invalidParams } from "../protocol/wire-errors.js";
import { HUB_METHOD, type HistoryAnswer } from "../shared/hub-extension.js";

const HISTORY = HUB_METHOD.history;

/** Events in a page unless the client asks for fewer; and the most it may ask for. */
export const PAGE_EVENTS = { default: 500, max: 5000 };
/** UTF-8 bytes of stored text in a page unless the client asks for fewer; and the most. */
export const PAGE_BYTES = { default: 1 << 20, max: 8 << 20 };

// Answers the method for a client that may see the session (it need not be attached).
export async function historyPage(
  hub: SessionHub,
  record: SessionRecord,
  params: Params,
): Promise<HistoryAnswer> {
  const options = pageOptions(params);
  const { stored, more } = await readWithMore(hub, record.id, options);
  return {
    updates: stampedParams(record.id, stored),
    firstSeq: stored[0]?.seq ?? null,
    lastSeq: stored.at(-1)?.seq ?? null,
    more,
  };
}

// The page, read with one event more than asked: when that one comes back there is more, and
// the page is read once (each read of the ledger's hot end scans its journal). A page that
// came back short — the session's end, or cut at maxBytes — asks for the next event alone.
async function readWithMore(
  hub: SessionHub,
  sessionId: string,
  options: PageOptions,
): Promise<{ stored: StoredEvent[]; more: boolean }> {
  const read = await hub.ledger.readPage(sessionId, {
    ...options,
    limit: options.limit + 1,
  });
  if (read.length > options.limit) {
    const newest = options.from === "newest";
    return { stored: newest ? read.slice(1) : read.slice(0, -1), more: true };
  }
  return {
    stored: read,
    more: await moreBeyond(hub, sessionId, options, read),
  };
}

// One more event past the page's far end, looked up by the primary key.
async function moreBeyond(
  hub: SessionHub,
  sessionId: string,
  options: PageOptions,
  stored: StoredEvent[],
): Promise<boolean> {
  if (stored.length === 0) return false;
  const next =
    options.from === "newest"
      ? { afterSeq: options.afterSeq, beforeSeq: stored[0]!.seq }
      : { afterSeq: stored.at(-1)!.seq, beforeSeq: options.beforeSeq };
  const beyond = await hub.ledger.readPage(sessionId, {
    ...next,
    limit: 1,
    from: options.from,
  });
  return beyond.length > 0;
}

// The page asked for, checked: cursors are sequence numbers, bounds within the hub's limits.
function pageOptions(params: Params): PageOptions {
  const from = params["from"] ?? "newest";
  if (from !== "newest" && from !== "oldest")
    throw invalidParams(`${HISTORY}: from must be "newest" or "oldest"`);
  return {
    afterSeq: seqParam(params, "afterSeq"),
    beforeSeq: seqParam(params, "beforeSeq"),
    limit: bounded(params, "limit", PAGE_EVENTS, "events"),
    maxBytes: bounded(params, "maxBytes", PAGE_BYTES, "bytes"),
    from,
  };
}

function seqParam(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw invalidParams(`${HISTORY}: ${name} must be a sequence number`);
  return value as number;
}

// A positive whole number up to the most allowed, or the default when absent.
function bounded(
  params: Params,
  name: string,
  limits: { default: number; max: number },
  unit: string,
): number {
  const value = params[name];
  if (value === undefined) return limits.default;
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw invalidParams(`${HISTORY}: ${name} must be a whole number ≥ 1`);
  if ((value as number) > limits.max)
    throw invalidParams(
      `${HISTORY}: ${name} is at most ${limits.max} ${unit} (asked ${String(value)})`,
    );
  return value as number;
}
