// The host's side of `session/request_permission`: completes the agent's tool call from what
// the session announced earlier (a request may lack its kind or title), then lets the engine
// decide — so the policy modes and the person asked both see the real kind, and an allowed
// answer covers the paths and commands the tool call named, as asked or as announced.
import type {
  RequestPermissionRequest,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type {
  HostContext,
  PermissionAnswer,
} from "../contracts/client-host.js";
import type { RawSessionUpdate } from "../contracts/events.js";
import type { PermissionEngine } from "./permission-engine.js";
import type { SessionFolderBook } from "./session-folders.js";
import { ToolCallBook, type KnownToolCall } from "./tool-call-book.js";
import { mergeSubjects, subjectsOf } from "./tool-call-scope.js";
import { inferKind } from "./tool-kind.js";

export interface PermissionPath {
  requestPermission(
    request: RequestPermissionRequest,
    ctx: HostContext,
  ): Promise<PermissionAnswer>;
  onSessionUpdate(sessionId: string, update: RawSessionUpdate): void;
  openSession(sessionId: string): void;
  closeSession(sessionId: string): void;
}

// Builds the permission path over the engine and the sessions' folders.
export function permissionPath(
  engine: PermissionEngine,
  folders: SessionFolderBook,
): PermissionPath {
  const book = new ToolCallBook();
  return {
    requestPermission: (request, ctx) => {
      const known = book.get(ctx.sessionId, request.toolCall.toolCallId);
      const workspace = folders.workspaceOf(ctx.sessionId);
      const asked = subjectsOf(request.toolCall);
      const subjects = known?.subjects
        ? mergeSubjects(asked, known.subjects)
        : asked;
      const complete = completeRequest(request, known);
      return engine.decide(complete, workspace, ctx.signal, subjects);
    },
    onSessionUpdate: (sessionId, update) => book.record(sessionId, update),
    openSession: (sessionId) => book.open(sessionId),
    closeSession: (sessionId) => book.close(sessionId),
  };
}

// The request with a missing title and kind filled: from the announced tool call, else (kind
// only) inferred from the title and rawInput. What the agent did send is never changed.
export function completeRequest(
  request: RequestPermissionRequest,
  known: KnownToolCall | undefined,
): RequestPermissionRequest {
  const toolCall = { ...request.toolCall };
  toolCall.title ??= known?.title;
  if (toolCall.title === undefined) delete toolCall.title;
  const kind = toolCall.kind ?? known?.kind ?? inferKind(toolCall);
  if (kind !== undefined) toolCall.kind = kind as ToolKind;
  return { ...request, toolCall };
}
