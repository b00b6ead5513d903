// The ledger as the gateway sees it: an asynchronous port, so that a ledger can live in this
// process (SQLite) or on the network (PostgreSQL). Implemented in src/ledger/.
//
// Guarantees every implementation keeps (the contract suite in test/ledger/ checks them):
// - `append` resolves only once the event is durable (committed), with its sequence number.
//   Appends are grouped into batches (group commit); the events of one session keep the order
//   of the `append` calls, and sequence numbers grow strictly within a session (gaps are allowed:
//   trimming and compaction remove events).
// - What is stored is the JSON text given (or produced) at append time, masked for known secrets;
//   `read` returns that text as stored, so replay can send it without parsing it again.
// - `compact` runs at the end of a turn only: a replay during a turn sees every chunk.
// - Caps trim the oldest events and mark the session `incomplete`.

/** One group-commit batch, as the ledger reports it to whoever traces it. */
export interface LedgerBatchReport {
  /** The sessions whose events it held, in order of first appearance. */
  sessionIds: string[];
  events: number;
  bytes: number;
  /** When its transaction started and ended (ms since the epoch). */
  startedAt: number;
  endedAt: number;
  /** Why it failed, when it did. */
  error?: string;
}

/** Whether a ledger session is open to editors or was closed by one. */
export type SessionStatus = "active" | "closed";

export interface SessionRecord {
  /** acphub's own id, the one editors see; stable across restarts. */
  id: string;
  agent: string;
  cwd: string;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  state: SessionStatus;
  /** The agent's id for this session, when one is known. */
  agentSessionId: string | null;
  /** What the session was opened with (mcpServers, additionalDirectories, _meta). */
  request: Record<string, unknown>;
  /** True when old events were trimmed past a cap: a replay is not the whole history. */
  incomplete: boolean;
  eventCount: number;
  bytes: number;
  /** The modes, models and config options the agent last reported (see session-settings). */
  settings: Record<string, unknown> | null;
  /** The session this one was forked from, if any. */
  forkedFrom: string | null;
}

/** What a new session starts with; the ledger fills in the counters. */
export type NewSessionRecord = Omit<
  SessionRecord,
  "incomplete" | "eventCount" | "bytes" | "settings" | "forkedFrom"
> &
  Partial<Pick<SessionRecord, "settings" | "forkedFrom">>;

export type SessionPatch = Partial<
  Pick<SessionRecord, "title" | "state" | "agentSessionId" | "updatedAt">
>;

/**
 * What an event records. Payload shapes: `prompt` {prompt, meta?, author?} (author: the hub
 * user who sent it); `update` {update, _meta?}
 * (exactly a `session/update`'s params without `sessionId`); `permission` {toolCall, outcome,
 * decidedBy, reason}; `turn_end` {stopReason, usage?} or {error}; `restore` {mode, agentSessionId};
 * `workflow` a workflow run's progress: run and step starts and ends (workflows/ports.ts);
 * `notice` {severity, title} one of acphub's notices, at the place it was shown (notices.ts);
 * `prompt_queued` {queueId, prompt, author?} a prompt sent while a turn ran, waiting for its own;
 * `prompt_dequeued` {queueId, reason, by?} it left the line: `started` (its `prompt` follows),
 * `revoked` (by `by`) or `dropped` (the hub stopped before it ran) (engine/queued-prompts.ts).
 */
export type LedgerEventKind =
  | "prompt"
  | "update"
  | "permission"
  | "turn_end"
  | "restore"
  | "workflow"
  | "notice"
  | "prompt_queued"
  | "prompt_dequeued";

export const LEDGER_EVENT_KINDS: readonly LedgerEventKind[] = [
  "prompt",
  "update",
  "permission",
  "turn_end",
  "restore",
  "workflow",
  "notice",
  "prompt_queued",
  "prompt_dequeued",
];

/** An event parsed and checked. */
export interface LedgerEvent {
  seq: number;
  kind: LedgerEventKind;
  payload: Record<string, unknown>;
  at: number;
}

/** An event as stored: its payload is the JSON text written at append time (a JSON object). */
export interface StoredEvent {
  seq: number;
  kind: LedgerEventKind;
  text: string;
  at: number;
}

/**
 * A replay (session/load) as read for an editor that takes frames: a string is the ready
 * newline-terminated session/update frames of stored updates shown as stored (the stored text
 * with the frame head in front, built by the database), a StoredEvent one to show as `read`'s.
 */
export type ReplayPart = string | StoredEvent;

/**
 * One turn's usage (issue 34): kept in a table of its own, apart from the session's events, so
 * that deleting, trimming or expiring sessions never gives a budget back. Only turns that ran
 * record one: a fork's or an import's copied events never do.
 */
export interface UsageEntry {
  /** The turn's identity (`SESSION:PROMPT_SEQ`): recording it again changes nothing. */
  turn: string;
  sessionId: string;
  agent: string;
  /** The hub user who sent the turn's prompt; null outside a hub with users. */
  user: string | null;
  /** When the turn ended (ms since the epoch). */
  at: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** What budgets count: totalTokens as reported, else input plus output. */
  tokens: number;
  /** The growth of the session's cumulative cost the agent reported during the turn. */
  cost: number;
  currency: string | null;
}

/** A usage row as stored: its id grows with each row recorded. */
export interface StoredUsage extends UsageEntry {
  id: number;
}

export interface ListFilter {
  cwd?: string;
  cursor?: string | null;
  limit?: number;
  /** Only the sessions this hub user holds a grant on (owner, driver or viewer; issue 22). */
  sharedWith?: string;
}

/** What `searchSessions` looks for, and how far. */
export interface SearchFilter {
  /**
   * Looked for case-insensitively in a session's title and in the text of its prompts and
   * message chunks (a message's chunks joined: a phrase may span two of them). Not empty.
   */
  text: string;
  /** Only the sessions this hub user holds a grant on. */
  sharedWith?: string;
  /** How many of the newest sessions (after `sharedWith`) are looked at. */
  scan: number;
  /** Matches returned at most. */
  limit: number;
}

export interface ListPage {
  sessions: SessionRecord[];
  nextCursor: string | null;
}

export interface ReadOptions {
  /** Only events with a larger sequence number (a client catching up from what it has). */
  afterSeq?: number;
  /** Only events up to this sequence number, included. */
  uptoSeq?: number;
  /** A run of text chunks stored merged comes as its chunks, each at its own seq (a reader
   * that relays the updates as the runner's clients saw them: a cluster node's feed). */
  eachChunk?: boolean;
}

/** One page of a session's events, for a reader that pages through a long history. */
export interface PageOptions {
  /** Only events with a larger sequence number. */
  afterSeq?: number;
  /** Only events with a smaller sequence number (absent: up to the newest). */
  beforeSeq?: number;
  /** At most this many events (at least 1). */
  limit: number;
  /** At most about this many UTF-8 bytes of stored text; the first event is returned anyway. */
  maxBytes?: number;
  /** "newest": the range's last events (paging back from the end); "oldest": its first. */
  from: "newest" | "oldest";
}

/** Hears how one `appendTo` ended: the event's seq, or why it was not stored. */
export interface AppendSink {
  stored(seq: number): void;
  failed(error: unknown): void;
}

export interface LedgerPort {
  createSession(record: NewSessionRecord): Promise<void>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  updateSession(id: string, patch: SessionPatch): Promise<void>;
  deleteSession(id: string): Promise<boolean>;
  /** Newest first; `cursor` is the `nextCursor` of the previous page. */
  listSessions(filter: ListFilter): Promise<ListPage>;
  /** The ids of the sessions whose title or text holds `filter.text`, newest first: one query. */
  searchSessions(filter: SearchFilter): Promise<string[]>;
  /**
   * Appends one event; `payload` is a JSON object or its serialized text (serialize once).
   * Resolves with its sequence number when the batch holding it is committed; rejects with a
   * HubError (`LEDGER_UNAVAILABLE`, `SESSION_NOT_FOUND`) when it is not stored.
   */
  append(
    sessionId: string,
    kind: LedgerEventKind,
    payload: string | Record<string, unknown>,
  ): Promise<number>;
  /**
   * Optional: `append` of a JSON text with no promise made, for the relay's path (one per
   * update): `sink` is told the seq once the batch holding the event is committed, or why it is
   * not stored. Called from inside the ledger's commit: a sink returns at once and never throws.
   */
  appendTo?(
    sessionId: string,
    kind: LedgerEventKind,
    text: string,
    sink: AppendSink,
  ): void;
  /** Optional (with appendTo): calls `then` once every append made so far has settled. */
  afterAppends?(then: () => void): void;
  /** Stored events in order, as stored; rows that are not a JSON object are skipped. */
  read(sessionId: string, options?: ReadOptions): Promise<StoredEvent[]>;
  /**
   * One page of stored events, in order (oldest first) whichever end it was taken from; a
   * cursor `afterSeq` inside a merged run reads as in `read`.
   */
  readPage(sessionId: string, options: PageOptions): Promise<StoredEvent[]>;
  /**
   * A whole session as a replay for an editor that takes frames, `head` (the frame's start up
   * to its params' first member) in front of each stored update: what `read` gives, with the
   * plain updates already joined into frames. Optional: without it, replay builds the frames.
   */
  readReplay?(sessionId: string, head: string): Promise<ReplayPart[]>;
  /** Stored events in order, parsed and checked; damaged rows are skipped and logged. */
  events(sessionId: string, options?: ReadOptions): Promise<LedgerEvent[]>;
  /**
   * Merges runs of consecutive text chunks (agent_message_chunk, agent_thought_chunk,
   * user_message_chunk) after `afterSeq` (up to `uptoSeq`) that differ only in their text into
   * one event with the concatenated text, kept at the run's last sequence number (at most
   * MAX_RUN_CHUNKS chunks of consecutive sequence numbers each). Called when a turn ends, on that
   * turn's events only. A reader that stopped inside a run (`read` after seq N, N inside the run)
   * gets the run's event with only the text of the chunks after N.
   */
  compact(sessionId: string, afterSeq: number, uptoSeq?: number): Promise<void>;
  /**
   * Optional: resolves when compacting the session's events up to `uptoSeq` costs the other
   * sessions nothing (SQLite: once they left its spool, at its next fold, within a second).
   * A finished turn's compaction waits for it, unless the gateway closes meanwhile.
   */
  whenCompactable?(sessionId: string, uptoSeq: number): Promise<void>;
  /** Stores the session's modes, models and config options (replacing what was there). */
  saveSettings(
    sessionId: string,
    settings: Record<string, unknown>,
  ): Promise<void>;
  /** A new session holding copies of another's events up to `uptoSeq` (all when absent): fork. */
  copySession(
    fromId: string,
    record: NewSessionRecord,
    uptoSeq?: number,
  ): Promise<void>;
  /**
   * Calls `listener` with the sequence number of each batch committed for `sessionId` from now on
   * — by this process, and (PostgreSQL) by any other process on the same ledger. Read what is new
   * with `read(id, { afterSeq })`. Returns the unsubscribe function.
   */
  follow(sessionId: string, listener: (lastSeq: number) => void): () => void;
  /** Records one turn's usage (once per `entry.turn`); sessions' deletion never removes it. */
  recordUsage(entry: UsageEntry): Promise<void>;
  /** The usage recorded with `at` at or after `since`, oldest row first. */
  readUsage(since: number): Promise<StoredUsage[]>;
  /** Waits for pending appends, then closes. */
  close(): Promise<void>;
}
