import type { InitializeResponse, McpServer } from "@agentclientprotocol/sdk";
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";

// The interfaces the gateway declares and the concrete parts implement: the ledger, the agent
// connection and the editor. The gateway imports none of ledger/, agents/ or editors/.

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

export type LedgerEventKind =
  | "prompt"
  | "update"
  | "permission"
  | "turn_end"
  | "restore"
  /** A workflow run's progress: run and step starts and ends (workflows/ports.ts). */
  | "workflow";

export interface LedgerEvent {
  seq: number;
  kind: LedgerEventKind;
  payload: Record<string, unknown>;
  at: number;
}

export interface ListPage {
  sessions: SessionRecord[];
  nextCursor: string | null;
}

/** What a new session starts with; the ledger fills in the counters. */
export type NewSessionRecord = Omit<
  SessionRecord,
  "incomplete" | "eventCount" | "bytes" | "settings" | "forkedFrom"
> &
  Partial<Pick<SessionRecord, "settings" | "forkedFrom">>;

export interface LedgerPort {
  createSession(record: NewSessionRecord): void;
  getSession(id: string): SessionRecord | undefined;
  updateSession(
    id: string,
    patch: Partial<
      Pick<SessionRecord, "title" | "state" | "agentSessionId" | "updatedAt">
    >,
  ): void;
  deleteSession(id: string): boolean;
  listSessions(filter: {
    cwd?: string;
    cursor?: string | null;
    limit?: number;
  }): ListPage;
  /** Appends one event; returns its sequence number. Trims past the caps. */
  append(
    sessionId: string,
    kind: LedgerEventKind,
    payload: Record<string, unknown>,
  ): number;
  events(sessionId: string): LedgerEvent[];
  /** Stores the session's modes, models and config options (replacing what was there). */
  saveSettings(sessionId: string, settings: Record<string, unknown>): void;
  /** A new session holding copies of another's events up to `uptoSeq` (all when absent): a
   *  fork. The same name and shape as the asynchronous port's (issue 9). */
  copySession(fromId: string, record: NewSessionRecord, uptoSeq?: number): void;
  close(): void;
}

/** One turn on the agent, as the client core runs it. */
export interface TurnPort extends AsyncIterable<RunEvent> {
  result: Promise<PromptResult>;
  cancel(): void;
}

export interface AgentSessionPort {
  id: string;
  state: Record<string, unknown>;
  prompt(
    blocks: RawContentBlock[],
    /** An aborted `signal` cancels the turn (at once when it is already aborted). */
    options: { meta?: Record<string, unknown>; signal?: AbortSignal },
  ): TurnPort;
  cancel(): void;
  /** Events outside a turn (command lists after session/new, mode changes). */
  onEvent(listener: (event: RunEvent) => void): () => void;
  setMode(modeId: string, signal?: AbortSignal): Promise<void>;
  setConfigOption(
    configId: string,
    value: string,
    signal?: AbortSignal,
  ): Promise<void>;
}

export type AgentCapability =
  "loadSession" | "list" | "resume" | "close" | "delete" | "fork" | "title";

export interface AgentPort {
  readonly alive: boolean;
  /** True for an agent of acphub's own (a workflow served as the agent): no process to restore. */
  readonly inProcess?: boolean;
  readonly initializeResponse: InitializeResponse | undefined;
  supports(capability: AgentCapability): boolean;
  // Every request but a turn is bounded: by the signal, and by the agent's request timeout.
  newSession(
    params: SessionOpenParams,
    signal?: AbortSignal,
  ): Promise<AgentSessionPort>;
  loadSession(
    id: string,
    params: SessionOpenParams,
    signal?: AbortSignal,
  ): Promise<{ session: AgentSessionPort }>;
  resumeSession(
    id: string,
    params: SessionOpenParams,
    signal?: AbortSignal,
  ): Promise<AgentSessionPort>;
  /** Forks the agent's session `id` (session/fork); needs the `fork` capability. */
  forkSession(
    id: string,
    params: SessionOpenParams,
    signal?: AbortSignal,
  ): Promise<AgentSessionPort>;
  closeSession(id: string, signal?: AbortSignal): Promise<void>;
  deleteSession(id: string, signal?: AbortSignal): Promise<void>;
  authenticate(methodId: string, signal?: AbortSignal): Promise<void>;
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T>;
  notify(method: string, params: unknown): void;
  close(): Promise<void>;
}

export interface SessionOpenParams {
  cwd: string;
  mcpServers?: McpServer[];
  additionalDirectories?: string[];
  meta?: Record<string, unknown>;
}

/** The editor, as the gateway talks back to it. */
export interface EditorPort {
  /** In-process editors (the CLI) also see permission, audit and request events. */
  observe?(sessionId: string, event: RunEvent): void;
  /** `delivery.seq` is the ledger sequence number of a recorded session/update. */
  notify(
    method: string,
    params: unknown,
    delivery?: { seq?: number },
  ): Promise<void>;
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T>;
}

/** A command acphub offers in a session next to the agent's own (a workflow, say). */
export interface HubCommand {
  name: string;
  description: string;
  input?: { hint: string };
}

/** What a hub command may do in the session it runs in. */
export interface HubCommandContext {
  sessionId: string;
  cwd: string;
  /** The text after `/name `. */
  input: string;
  /** The editor's own MCP servers of this session (from session/new). */
  mcpServers: McpServer[];
  /** Shows an update to the editor (recorded in the ledger first). */
  send(update: Record<string, unknown>): Promise<void>;
  /** Tells the editor something in acphub's own voice (a notice). */
  tell(text: string): Promise<void>;
  /** Asks the editor (`session/request_permission`, say). */
  request<T = unknown>(
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<T>;
  signal: AbortSignal;
}

/** The commands acphub itself runs in sessions (workflows); the gateway knows them by this port. */
export interface HubCommandsPort {
  /** Commands to advertise in a session in this folder. */
  list(cwd: string): HubCommand[];
  /** When set, every prompt runs this command (a workflow presented as the agent). */
  exclusive?: string;
  /** Runs one; resolves to the prompt's stop reason. */
  run(name: string, ctx: HubCommandContext): Promise<{ stopReason: string }>;
  /** The command a session's next prompt continues whatever it says (a run a crash
   *  interrupted), if any. */
  interrupted?(sessionId: string): Promise<string | undefined>;
}
