// What this turn's allowed permission requests cover, per session: the accesses of the tool
// call's kind, on the paths and commands it named (tool-call-scope.ts says what matches).
// Cleared when the turn ends; a rejected request never adds anything here.
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { pathKey, type ToolSubjects } from "./tool-call-scope.js";

/** What an allowed tool call of each kind covers; any other kind covers all three. */
/** What a request does to its subject. */
export type Access = "read" | "write" | "execute";

const ACCESSES_OF_KIND: Record<string, readonly Access[]> = {
  read: ["read"],
  search: ["read"],
  fetch: ["read"],
  think: ["read"],
  edit: ["read", "write"],
  delete: ["read", "write"],
  move: ["read", "write"],
  execute: ["execute"],
};
const ALL_ACCESSES: readonly Access[] = ["read", "write", "execute"];
/** Grants kept per session and turn; the oldest go first. */
const MAX_GRANTS_PER_TURN = 256;

export interface Grant {
  accesses: readonly Access[];
  /** Resolved against the session's cwd. */
  paths: ReadonlySet<string>;
  commands: ReadonlySet<string>;
  title: string;
}

export class TurnGrants {
  private readonly grants = new Map<string, Grant[]>();

  // Records an allowed tool call; one that names no path or command covers nothing.
  add(
    request: RequestPermissionRequest,
    workspace: string,
    subjects: ToolSubjects,
  ): void {
    if (subjects.paths.length === 0 && subjects.commands.length === 0) return;
    const kind = request.toolCall.kind ?? "other";
    const list = this.grants.get(request.sessionId) ?? [];
    list.push({
      accesses: ACCESSES_OF_KIND[kind] ?? ALL_ACCESSES,
      paths: new Set(subjects.paths.map((p) => pathKey(p, workspace))),
      commands: new Set(subjects.commands),
      title: request.toolCall.title ?? request.toolCall.toolCallId,
    });
    if (list.length > MAX_GRANTS_PER_TURN) list.shift();
    this.grants.set(request.sessionId, list);
  }

  /** The grant that covers this access to one of these keys (paths resolved, or commands). */
  find(sessionId: string, access: Access, keys: string[]): Grant | undefined {
    const field = access === "execute" ? "commands" : "paths";
    return this.grants
      .get(sessionId)
      ?.find(
        (g) => g.accesses.includes(access) && keys.some((k) => g[field].has(k)),
      );
  }

  endTurn(sessionId: string): void {
    this.grants.delete(sessionId);
  }
}
