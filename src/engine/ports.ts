import type { InitializeResponse, McpServer } from "@agentclientprotocol/sdk";
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";

// The interfaces the gateway declares and the concrete parts implement: the ledger, the agent
// connection and the editor. The gateway imports none of ledger/, agents/ or editors/.

export type {
  AppendSink,
  LedgerBatchReport,
  LedgerEvent,
  LedgerEventKind,
  LedgerPort,
  ListPage,
  NewSessionRecord,
  SessionRecord,
  SessionStatus,
  StoredEvent,
  StoredUsage,
  UsageEntry,
} from "./ledger-port.js";

/** One turn on the agent, as the client core runs it. */
export interface TurnPort extends AsyncIterable<RunEvent> {
  result: Promise<PromptResult>;
  cancel(): void;
  /**
   * The next event already received, taken without waiting (undefined when none is): the
   * events of one read from the agent are relayed in one go, not one microtask each. Never
   * called while the iterator's own `next()` is pending.
   */
  poll?(): RunEvent | undefined;
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
  /** `replay`: the updates the agent replayed while loading, in order. */
  loadSession(
    id: string,
    params: SessionOpenParams,
    signal?: AbortSignal,
  ): Promise<{ session: AgentSessionPort; replay?: RunEvent[] }>;
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
  /** Forgets a session here (its host state, terminals included) without telling the agent:
   *  for a session the agent cannot close. */
  releaseSession?(id: string): void;
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
  /** `delivery.seq` is the ledger sequence number of a recorded session/update; `delivery.text`
   *  its stored JSON text (the params without sessionId, as JSON.stringify gives them). Returns
   *  nothing when the notification was handed on at once (the hub's fan-out: no promise to
   *  wait for per update), else a promise the relay waits for before its next send. */
  notify(
    method: string,
    params: unknown,
    delivery?: { seq?: number; text?: string },
  ): Promise<void> | void;
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

/** A command acphub offers in a session next to the agent's own (a workflow, say). */
export interface SessionCommand {
  name: string;
  description: string;
  input?: { hint: string };
}

/** What a session command may do in the session it runs in. */
export interface SessionCommandContext {
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
  /** The `_meta` keys the session's turn gives what it starts (its `traceparent`): a run's step
   *  turns are traced under the turn that ran the command. */
  meta?: Record<string, unknown>;
}

/** The commands acphub itself runs in sessions (workflows); the gateway knows them by this port. */
export interface SessionCommandsPort {
  /** Commands to advertise in a session in this folder. */
  list(cwd: string): SessionCommand[];
  /** When set, every prompt runs this command (a workflow presented as the agent). */
  exclusive?: string;
  /** Runs one; resolves to the prompt's stop reason. */
  run(
    name: string,
    ctx: SessionCommandContext,
  ): Promise<{ stopReason: string }>;
  /** The command a session's next prompt continues whatever it says (a run a crash
   *  interrupted), if any. */
  interrupted?(sessionId: string): Promise<string | undefined>;
}
