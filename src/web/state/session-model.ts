// One session as the page shows it, built from session/update notifications in order: text
// chunks joined into messages, tool calls merged by id, the plan replaced in place, usage,
// commands, modes and config options. Updates carrying a hub sequence number at or below the
// last one applied are ignored, so a replay after a reconnect never shows anything twice. Item
// ids come from sequence numbers, so a transcript rebuilt from another window of the history
// (history-window.ts) keeps the ids of the items it still holds.
import { ownMetaOf } from "../../shared/hub-extension.js";

export type Params = Record<string, unknown>;

export type ItemKind = "user" | "agent" | "thought" | "tool" | "notice";

export interface Item {
  id: string;
  kind: ItemKind;
  /** Joined text for messages and thoughts. */
  text: string;
  /** The merged tool call (tool_call, then each tool_call_update). */
  call?: Params;
  /** Bumped on every change, so views re-render only what changed. */
  rev: number;
  /** Who sent a user message (the hub's `_meta.acphub.author`), when the hub said. */
  author?: string;
}

export interface SessionModel {
  sessionId: string;
  items: Item[];
  plan?: Params[];
  /** The prompt the plan belongs to (the number of user messages when it came). */
  planTurn?: number;
  /** User messages so far (a new one makes an earlier turn's plan stale). */
  turns: number;
  usage?: Params;
  commands: Params[];
  modes?: { currentModeId?: string; availableModes: Params[] };
  configOptions: Params[];
  title?: string;
  lastSeq: number;
  /** Updates applied (for tests and figures). */
  count: number;
  /** Tool call items by tool call id. */
  tools: Map<string, Item>;
  /** The authors of the user messages seen (more than one: each message shows its author). */
  authors: Set<string>;
  /** The part of the history the page holds (history-window.ts). */
  window: HistoryWindow;
  /** Prompts queued to run after the turn (issue 37), first queued first, by queue id. */
  queued: Map<string, QueuedPrompt>;
  /** Whose agent process (and credentials) runs the session, as the hub said on opening it. */
  runsAs?: string;
}

/** A prompt waiting for the running turn to end, as the hub's notice told it. */
export interface QueuedPrompt {
  queueId: string;
  author?: string;
  text: string;
}

/** The updates the page holds: a stretch of the history, paged from the ledger. */
export interface HistoryWindow {
  /** Raw updates in order; the items are built from these. */
  updates: Params[];
  /** The sequence numbers the window starts after and ends at (paging cursors). */
  firstSeq: number;
  endSeq: number;
  /** The ledger holds events before the window. */
  hasOlder: boolean;
  /** The window ends at the live end (live updates join it); else they wait in `pending`. */
  atLive: boolean;
  /** Live updates that came while the window did not reach the live end. */
  pending: Params[];
  /** Some of `pending` was let go (too many): read the ledger again before going live. */
  pendingLost: boolean;
  /** Bumped when the items were rebuilt from another window (the view keeps its place). */
  epoch: number;
}

const CHUNK_KINDS: Record<string, ItemKind> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

export function newModel(sessionId: string): SessionModel {
  return {
    sessionId,
    items: [],
    commands: [],
    configOptions: [],
    turns: 0,
    lastSeq: 0,
    count: 0,
    tools: new Map(),
    authors: new Set(),
    queued: new Map(),
    window: {
      updates: [],
      firstSeq: 0,
      endSeq: 0,
      hasOlder: false,
      atLive: true,
      pending: [],
      pendingLost: false,
      epoch: 0,
    },
  };
}

/** The hub's sequence number on an update, if it has one. */
export function seqOf(params: Params): number | undefined {
  const seq: unknown = ownMetaOf(params["_meta"]).seq;
  return typeof seq === "number" ? seq : undefined;
}

// The text a content block shows (text, or a short label for anything else).
export function contentText(content: unknown): string {
  const c = content as Params | undefined;
  if (!c) return "";
  if (c["type"] === "text") return String(c["text"] ?? "");
  if (c["type"] === "resource_link")
    return `[${String(c["name"] ?? c["uri"] ?? "")}]`;
  return `[${String(c["type"] ?? "content")}]`;
}

// Applies one session/update; false when it was a duplicate (seq already applied).
export function applyUpdate(m: SessionModel, params: Params): boolean {
  const seq = seqOf(params);
  if (seq !== undefined) {
    if (seq <= m.lastSeq) return false;
    m.lastSeq = seq;
  }
  m.count += 1;
  noteQueue(m, params);
  const u = (params["update"] ?? {}) as Params;
  const kind = String(u["sessionUpdate"] ?? "");
  const chunk = CHUNK_KINDS[kind];
  if (chunk) {
    const text = contentText(u["content"]);
    if (chunk === "agent" && isNoticeChunk(params))
      pushItem(m, "notice", text.trim().replace(NOTICE, "").trim(), seq);
    else appendText(m, chunk, text, seq);
    if (chunk === "user") noteAuthor(m, params);
    return true;
  }
  switch (kind) {
    case "tool_call":
    case "tool_call_update":
      mergeToolCall(m, u);
      break;
    case "plan":
      m.plan = (u["entries"] as Params[] | undefined) ?? [];
      m.planTurn = m.turns;
      break;
    case "usage_update":
      m.usage = { ...m.usage, ...u };
      break;
    case "available_commands_update":
      m.commands = (u["availableCommands"] as Params[] | undefined) ?? [];
      break;
    case "current_mode_update":
      if (m.modes)
        m.modes = { ...m.modes, currentModeId: String(u["currentModeId"]) };
      syncModeOption(m, String(u["currentModeId"]));
      break;
    case "config_option_update":
      m.configOptions =
        (u["configOptions"] as Params[] | undefined) ?? m.configOptions;
      break;
    case "session_info_update":
      if (typeof u["title"] === "string") m.title = u["title"];
      break;
    case "notice":
      pushItem(
        m,
        "notice",
        String(u["title"] ?? u["message"] ?? u["text"] ?? JSON.stringify(u)),
        seq,
      );
      break;
  }
  return true;
}

// Chunks continue the last message of the same kind; the user's prompt blocks share a seq.
function appendText(
  m: SessionModel,
  kind: ItemKind,
  text: string,
  seq?: number,
): void {
  const last = m.items.at(-1);
  if (
    last &&
    last.kind === kind &&
    (kind !== "user" || last.id === `user-${seq}`)
  ) {
    last.text += kind === "user" && text ? `\n${text}` : text;
    last.rev += 1;
    return;
  }
  if (text === "" && kind !== "user") return;
  if (kind === "user") m.turns += 1;
  m.items.push({ id: itemId(m, kind, seq), kind, text, rev: 0 });
}

/** The user who sent a prompt, as the hub tells on its user_message_chunk updates. */
export function authorOf(params: Params): string | undefined {
  const author: unknown = ownMetaOf(params["_meta"]).author;
  return typeof author === "string" && author ? author : undefined;
}

// Marks the last user message with its author, and counts the session's authors.
function noteAuthor(m: SessionModel, params: Params): void {
  const author = authorOf(params);
  const last = m.items.at(-1);
  if (!author || last?.kind !== "user" || last.author === author) return;
  last.author = author;
  last.rev += 1;
  m.authors.add(author);
}

// An item's id: its kind and the sequence number of the update that started it.
function itemId(m: SessionModel, kind: ItemKind, seq?: number): string {
  return `${kind}-${seq ?? `n${m.count}`}`;
}

function pushItem(
  m: SessionModel,
  kind: ItemKind,
  text: string,
  seq?: number,
): void {
  m.items.push({ id: itemId(m, kind, seq), kind, text, rev: 0 });
}

// A tool call's fields, merged over what earlier updates said about the same id.
function mergeToolCall(m: SessionModel, u: Params): void {
  const id = String(u["toolCallId"] ?? "");
  const existing = m.tools.get(id);
  const { sessionUpdate: _kind, ...fields } = u;
  const defined = Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && v !== null),
  );
  if (existing) {
    existing.call = { ...existing.call, ...defined };
    existing.rev += 1;
    return;
  }
  const item: Item = {
    id: `tool-${id}`,
    kind: "tool",
    text: "",
    call: defined,
    rev: 0,
  };
  m.tools.set(id, item);
  m.items.push(item);
}

// A queued prompt's notice: it joined the line (kept until it leaves) or left it.
function noteQueue(m: SessionModel, params: Params): void {
  const { queued, dequeued } = ownMetaOf(params["_meta"]);
  if (queued && typeof queued.queueId === "string")
    m.queued.set(queued.queueId, {
      queueId: queued.queueId,
      ...(queued.author ? { author: queued.author } : {}),
      text: (Array.isArray(queued.prompt) ? queued.prompt : [])
        .map(contentText)
        .join("\n"),
    });
  if (dequeued) m.queued.delete(dequeued.queueId);
}

/** acphub's own words sent as agent text to editors that do not show notices. */
const NOTICE = /^\[acphub\] /;

/** Whether an agent_message_chunk is acphub's notice, not the agent's words: marked
 *  `_meta.acphub.notice` (the hub sends it on a line of its own, "\n[acphub] …\n"), or an
 *  older unmarked `[acphub] …` line. A notice is an item of its own, never joined to a reply. */
export function isNoticeChunk(params: Params): boolean {
  if (ownMetaOf(params["_meta"]).notice !== undefined) return true;
  const u = params["update"] as Params | undefined;
  return NOTICE.test(contentText(u?.["content"]).trimStart());
}

/** The config option that chooses the same thing as the modes (category "mode"), if any. */
export function modeOption(m: SessionModel): Params | undefined {
  return m.configOptions.find(
    (o) => o["category"] === "mode" || o["id"] === "mode",
  );
}

// A mode change reported as such moves the config option for the same choice too.
function syncModeOption(m: SessionModel, modeId: string): void {
  const option = modeOption(m);
  const values = (option?.["options"] as Params[] | undefined) ?? [];
  if (!option || !values.some((v) => v["value"] === modeId)) return;
  m.configOptions = m.configOptions.map((o) =>
    o === option ? { ...o, currentValue: modeId } : o,
  );
}

/** The plan, while it belongs to the latest prompt. */
export function currentPlan(m: SessionModel): Params[] | undefined {
  return m.planTurn === m.turns ? m.plan : undefined;
}

/** Modes and config options from a session/new or session/load answer. */
export function applyOpenResult(m: SessionModel, result: Params): void {
  const modes = result["modes"] as SessionModel["modes"] | undefined;
  if (modes) m.modes = modes;
  const options = result["configOptions"] as Params[] | undefined;
  if (options) m.configOptions = options;
  const runsAs = ownMetaOf(result["_meta"]).runsAs;
  if (typeof runsAs === "string") m.runsAs = runsAs;
}
