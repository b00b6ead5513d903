// The typed events a prompt run yields: every session/update exactly as the agent sent it,
// plus what acphub did on the agent's behalf (permissions, file and terminal requests).
import type {
  ContentBlock,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";

/** An update as received; variants this SDK version does not know pass through unchanged. */
export type RawSessionUpdate =
  SessionUpdate | { sessionUpdate: string; [key: string]: unknown };

/** A prompt block as an editor sent it; kinds this SDK version does not know pass through. */
export type RawContentBlock =
  ContentBlock | { type: string; [key: string]: unknown };

export interface SessionUpdateEvent {
  type: "session_update";
  sessionId: string;
  update: RawSessionUpdate;
  /** The notification's own `_meta`, when it had one. */
  meta?: Record<string, unknown>;
}

export type PermissionDecider = "host" | "default" | "cancelled";

export interface PermissionEvent {
  type: "permission";
  sessionId: string;
  request: RequestPermissionRequest;
  outcome: RequestPermissionOutcome;
  decidedBy: PermissionDecider;
  /** Why an automatic decision was made, for people reading the output. */
  reason?: string;
  /** When the agent asked (ms since the epoch): how long the question waited. */
  askedAt?: number;
}

export interface ClientRequestEvent {
  type: "client_request";
  sessionId: string;
  method: string;
  params: unknown;
  ok: boolean;
  error?: { code: number; message: string };
  /** When the agent's request arrived (ms since the epoch): how long serving it took. */
  startedAt?: number;
  /** A terminal's id and exit status (terminal/create, terminal/wait_for_exit answers only). */
  result?: Record<string, unknown>;
}

export interface ExtensionEvent {
  type: "extension_notification";
  sessionId: string;
  method: string;
  params: unknown;
}

/** What acphub did with an agent's file or terminal request (emitted by the host). */
export interface AuditEvent {
  type: "audit";
  sessionId: string;
  action: "read" | "write" | "terminal";
  /** The path as the agent sent it, for reads and writes. */
  path?: string;
  /** The command line (secrets masked), for terminals. */
  command?: string;
  bytes?: number;
  allowed: boolean;
  /** Why it was allowed or refused. */
  reason: string;
}

export type RunEvent =
  | SessionUpdateEvent
  | PermissionEvent
  | ClientRequestEvent
  | ExtensionEvent
  | AuditEvent;

export interface PromptResult {
  stopReason: StopReason;
  usage?: Record<string, unknown> | null;
  /** The whole prompt response as the agent sent it (`_meta` included). */
  response: Record<string, unknown>;
}
