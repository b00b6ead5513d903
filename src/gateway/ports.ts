import type { InitializeResponse, McpServer } from "@agentclientprotocol/sdk";
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";

// The interfaces the gateway declares and the concrete parts implement: the ledger, the agent
// connection and the editor. The gateway imports none of ledger/, agents/ or editors/.

export type {
  LedgerEvent,
  LedgerEventKind,
  LedgerPort,
  ListPage,
  NewSessionRecord,
  SessionRecord,
  SessionStatus,
  StoredEvent,
} from "./ledger-port.js";

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
  /**
   * Editors whose output acphub frames itself (stdio): whole newline-terminated JSON-RPC frames,
   * written in order with everything else this editor is sent. Without it, `notify` is used.
   */
  writeFrames?(text: string): void;
  /** Resolves once everything sent so far has been handed to the editor's output. */
  drained?(): Promise<void>;
  request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T>;
}
