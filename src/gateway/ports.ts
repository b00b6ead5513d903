import type { InitializeResponse, McpServer } from "@agentclientprotocol/sdk";
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";

// The interfaces the gateway declares and the concrete parts implement: the ledger, the agent
// connection and the editor. The gateway imports none of ledger/, agents/ or editors/.

export type SessionState = "active" | "closed";

export interface SessionRecord {
  /** acphub's own id, the one editors see; stable across restarts. */
  id: string;
  agent: string;
  cwd: string;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  state: SessionState;
  /** The agent's id for this session, when one is known. */
  agentSessionId: string | null;
  /** What the session was opened with (mcpServers, additionalDirectories, _meta). */
  request: Record<string, unknown>;
  /** True when old events were trimmed past a cap: a replay is not the whole history. */
  incomplete: boolean;
  eventCount: number;
  bytes: number;
}

export type LedgerEventKind =
  "prompt" | "update" | "permission" | "turn_end" | "restore";

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

export interface LedgerPort {
  createSession(
    record: Omit<SessionRecord, "incomplete" | "eventCount" | "bytes">,
  ): void;
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
    options: { meta?: Record<string, unknown> },
  ): TurnPort;
  cancel(): void;
  /** Events outside a turn (command lists after session/new, mode changes). */
  onEvent(listener: (event: RunEvent) => void): () => void;
  setMode(modeId: string): Promise<void>;
  setConfigOption(configId: string, value: string): Promise<void>;
}

export interface AgentPort {
  readonly alive: boolean;
  readonly initializeResponse: InitializeResponse | undefined;
  supports(
    capability: "loadSession" | "list" | "resume" | "close" | "delete",
  ): boolean;
  newSession(params: SessionOpenParams): Promise<AgentSessionPort>;
  loadSession(
    id: string,
    params: SessionOpenParams,
  ): Promise<{ session: AgentSessionPort }>;
  resumeSession(
    id: string,
    params: SessionOpenParams,
  ): Promise<AgentSessionPort>;
  closeSession(id: string): Promise<void>;
  deleteSession(id: string): Promise<void>;
  authenticate(methodId: string): Promise<void>;
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
  notify(method: string, params: unknown): Promise<void>;
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T>;
}
