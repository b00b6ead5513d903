// The page holds a window of a session's history, not all of it: the newest page first (painted
// at once), older pages added as the reader scrolls up and newer ones as they scroll back down,
// pages far from the view let go (the ledger keeps them, `_acphub/history` reads them again).
// While the window reaches the live end, live updates join it; otherwise they wait in a bounded
// list until a forward read reaches the end, so nothing is missed or shown twice.
import type { Params } from "../acp/hub-client.js";
import {
  applyUpdate,
  currentPlan,
  isNoticeChunk,
  newModel,
  seqOf,
  type SessionModel,
} from "./session-model.js";

export {
  FIRST_PAGE_EVENTS,
  PAGE_BYTES,
  PAGE_EVENTS,
  type HistoryPage,
} from "./history-request.js";
import { PAGE_EVENTS, type HistoryPage } from "./history-request.js";
/** The most updates the window holds (pages past it are let go). */
export const WINDOW_UPDATES = 3000;
/** Live updates kept while the window is away from the live end. */
const PENDING_MAX = 5000;

// The newest page, as the first window of a session just opened (applied to the model).
export function startWindow(m: SessionModel, page: HistoryPage): void {
  const w = m.window;
  for (const p of page.updates) applyUpdate(m, p);
  w.updates = [...page.updates];
  w.firstSeq = page.firstSeq ?? 0;
  w.endSeq = page.lastSeq ?? 0;
  m.lastSeq = Math.max(m.lastSeq, w.endSeq);
  w.hasOlder = page.more;
  w.atLive = true;
}

// A live update: joins the window at the live end, else waits; false for a duplicate.
export function receive(m: SessionModel, p: Params): boolean {
  const w = m.window;
  const seq = seqOf(p);
  if (!w.atLive) {
    if (seq !== undefined && seq <= m.lastSeq) return false;
    if (seq !== undefined) m.lastSeq = seq;
    w.pending.push(p);
    if (w.pending.length > PENDING_MAX) {
      w.pending.splice(0, w.pending.length - PENDING_MAX);
      w.pendingLost = true;
    }
    return false;
  }
  if (!applyUpdate(m, p)) return false;
  if (!joinChunk(w.updates, p)) w.updates.push(p);
  if (seq !== undefined) w.endSeq = seq;
  if (w.updates.length > WINDOW_UPDATES + PAGE_EVENTS) {
    dropOldest(m);
    rebuild(m);
  }
  return true;
}

/** Text chunk kinds a window joins into one update (as the items join them). */
const JOINED = new Set(["agent_message_chunk", "agent_thought_chunk"]);
/** Where a joined update keeps the sequence number of its last chunk. */
const LAST_SEQ = "__lastSeq";

// A live text chunk continuing the window's last update of the same kind is joined to it, so
// a long streamed reply holds one update in the window, not one per chunk. The joined update
// keeps its first chunk's seq (the paging cursor before it) and notes its last one.
function joinChunk(updates: Params[], p: Params): boolean {
  const last = updates.at(-1);
  const text = chunkText(p);
  const before = last && chunkText(last);
  if (text === undefined || before === undefined) return false;
  if (kindOf(last!) !== kindOf(p)) return false;
  const u = last!["update"] as Params;
  updates[updates.length - 1] = {
    ...last,
    update: { ...u, content: { type: "text", text: before + text } },
    [LAST_SEQ]: seqOf(p),
  };
  return true;
}

const kindOf = (p: Params) =>
  (p["update"] as Params | undefined)?.["sessionUpdate"];

// The text of a chunk the window may join (not acphub's notices, which are items of their own).
function chunkText(p: Params): string | undefined {
  const u = p["update"] as Params | undefined;
  const c = u?.["content"] as Params | undefined;
  if (!JOINED.has(String(kindOf(p))) || c?.["type"] !== "text")
    return undefined;
  return isNoticeChunk(p) ? undefined : String(c["text"] ?? "");
}

// The sequence number of an update's last part (a joined update's last chunk).
function lastSeqOf(p: Params): number | undefined {
  const last = p[LAST_SEQ];
  return typeof last === "number" ? last : seqOf(p);
}

// An older page, put in front; the newest updates let go when the window is full.
export function addOlder(m: SessionModel, page: HistoryPage): void {
  const w = m.window;
  w.updates = [...page.updates, ...w.updates];
  if (page.firstSeq !== null) w.firstSeq = page.firstSeq;
  w.hasOlder = page.more;
  if (w.updates.length > WINDOW_UPDATES) dropNewest(m);
  rebuild(m);
}

/** Before a forward read: live updates from now on are kept, the ones before it read again. */
export function readingForward(m: SessionModel): void {
  m.window.pending = [];
  m.window.pendingLost = false;
}

// A newer page after the window's end (`replace`: the newest page instead of the window). At
// the live end (and no live update lost meanwhile), what waited joins and the window is live.
export function addNewer(
  m: SessionModel,
  page: HistoryPage,
  replace = false,
): void {
  const w = m.window;
  w.updates = replace ? [...page.updates] : [...w.updates, ...page.updates];
  if (replace) {
    w.firstSeq = page.firstSeq ?? w.endSeq;
    w.hasOlder = page.more;
  }
  if (page.lastSeq !== null) w.endSeq = page.lastSeq;
  // The newest page ends at the live end; a forward page when nothing lies beyond it.
  const atEnd = replace || !page.more;
  if (atEnd && !w.pendingLost) goLive(m);
  if (w.updates.length > WINDOW_UPDATES) dropOldest(m);
  rebuild(m);
}

// The window reaches the live end: the waiting updates after it join, in order.
function goLive(m: SessionModel): void {
  const w = m.window;
  for (const p of w.pending) {
    const seq = seqOf(p);
    if (seq !== undefined && seq <= w.endSeq) continue;
    if (!joinChunk(w.updates, p)) w.updates.push(p);
    if (seq !== undefined) w.endSeq = seq;
  }
  w.pending = [];
  w.atLive = true;
  m.lastSeq = Math.max(m.lastSeq, w.endSeq);
}

// Lets go of the oldest updates past the window's size (whole sequence numbers at a time).
function dropOldest(m: SessionModel): void {
  const w = m.window;
  let cut = w.updates.length - WINDOW_UPDATES;
  while (cut < w.updates.length && sameSeq(w.updates, cut)) cut++;
  w.updates = w.updates.slice(cut);
  w.firstSeq = seqOf(w.updates[0] ?? {}) ?? w.endSeq;
  w.hasOlder = true;
}

// Lets go of the newest updates past the window's size: the window leaves the live end.
function dropNewest(m: SessionModel): void {
  const w = m.window;
  let cut = WINDOW_UPDATES;
  while (cut > 1 && sameSeq(w.updates, cut)) cut--;
  w.updates = w.updates.slice(0, cut);
  w.endSeq = lastSeqOf(w.updates.at(-1) ?? {}) ?? w.firstSeq;
  if (w.atLive) {
    w.atLive = false;
    w.pending = [];
    w.pendingLost = true;
  }
}

// Whether updates[i] has the sequence number of the one before it (one prompt's blocks).
function sameSeq(updates: Params[], i: number): boolean {
  const seq = seqOf(updates[i] ?? {});
  return seq !== undefined && seq === seqOf(updates[i - 1] ?? {});
}

// The items built again from the window's updates; the rest of the model (modes, commands,
// the resume cursor) stays as the live updates left it.
function rebuild(m: SessionModel): void {
  const fresh = newModel(m.sessionId);
  for (const p of m.window.updates) applyUpdate(fresh, p);
  const planShown = currentPlan(m) !== undefined;
  m.items = fresh.items;
  m.tools = fresh.tools;
  m.turns = fresh.turns;
  if (fresh.plan && m.window.atLive) {
    m.plan = fresh.plan;
    m.planTurn = fresh.planTurn;
  } else if (planShown) m.planTurn = m.turns;
  if (m.window.atLive) {
    if (fresh.usage) m.usage = fresh.usage;
    if (fresh.commands.length > 0) m.commands = fresh.commands;
    if (fresh.title) m.title = fresh.title;
  }
  m.window.epoch += 1;
}
