// The permission policy: remembered decisions, then config rules, then the mode. It answers
// the agent's `session/request_permission` and also governs the fs and terminal requests
// themselves, so an agent that writes or runs without asking first still meets it.
import type {
  PermissionOption,
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../config/schema.js";
import { isAllowed, outcomeFor } from "../protocol/permission-options.js";
import { rememberedFor } from "../contracts/users.js";
import {
  answeredBy,
  OPERATOR,
  type DecisionMemory,
} from "./decision-memory.js";
import { ruleMatches, type PermissionRule } from "./permission-rules.js";
import { pathKey, subjectsOf, type ToolSubjects } from "./tool-call-scope.js";
import { TurnGrants, type Access } from "./turn-grants.js";

/** Asks a person (the editor, the CLI prompt); resolves with the chosen outcome. */
export type Approver = (
  request: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionOutcome>;

export type { Access } from "./turn-grants.js";
export type { PermissionRule } from "./permission-rules.js";

export interface Verdict {
  allowed: boolean;
  reason: string;
}

export interface EngineOptions {
  mode: PermissionMode;
  /** Masks secrets in what is remembered on disk (commands can carry tokens). */
  mask?: (text: string) => string;
  rules?: PermissionRule[];
  approver?: Approver;
  memory?: DecisionMemory;
  /** On a hub: the user who owns a session (by the agent's session id); whose remembered
   *  decisions answer in it. None, or unknown: the operator's. */
  ownerOf?: (sessionId: string) => Promise<string | undefined>;
}

export const READ_KINDS: ReadonlySet<string> = new Set([
  "read",
  "search",
  "fetch",
  "think",
]);
const KIND_OF_ACCESS: Record<Access, string> = {
  read: "read",
  write: "edit",
  execute: "execute",
};

export const STANDARD_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
];

// The command a tool call carries (rawInput.command as string or argv), else its title.
export function subjectOf(request: RequestPermissionRequest): string {
  const raw = request.toolCall.rawInput as
    { command?: unknown } | null | undefined;
  const command = raw?.command;
  if (typeof command === "string") return command;
  if (Array.isArray(command)) return command.map(String).join(" ");
  return request.toolCall.title ?? request.toolCall.toolCallId;
}

export class PermissionEngine {
  /** Tool calls allowed by a permission request, per session, until the turn ends. */
  private readonly grants = new TurnGrants();

  constructor(private readonly options: EngineOptions) {}

  get mode(): PermissionMode {
    return this.options.mode;
  }

  private matchRule(kind: string, title: string, command?: string) {
    const index = (this.options.rules ?? []).findIndex((r) =>
      ruleMatches(r, kind, title, command),
    );
    return index === -1
      ? undefined
      : { rule: this.options.rules![index]!, index };
  }

  private masked(text: string): string {
    return this.options.mask ? this.options.mask(text) : text;
  }

  /** Ends a turn: what was granted for it no longer holds. */
  endTurn(sessionId: string): void {
    this.grants.endTurn(sessionId);
  }

  // Answers `session/request_permission` with one of the agent's own options. An allowed
  // answer grants, for this turn, the requests on the tool call's subjects.
  async decide(
    request: RequestPermissionRequest,
    workspace: string,
    signal: AbortSignal,
    subjects: ToolSubjects = subjectsOf(request.toolCall),
  ): Promise<{ outcome: RequestPermissionOutcome; reason: string }> {
    const kind = request.toolCall.kind ?? "other";
    const subject = subjectOf(request);
    const title = request.toolCall.title ?? "";
    const answer = (allow: boolean, reason: string) => {
      if (allow) this.grants.add(request, workspace, subjects);
      return {
        outcome: outcomeFor(allow ? "allow" : "reject", request.options),
        reason,
        byPolicy: true,
      };
    };
    const remembered = this.options.memory?.lookup(
      await this.ownerIn(request.sessionId),
      workspace,
      kind,
      this.masked(subject),
    );
    if (remembered)
      return answer(
        remembered.decision === "allow",
        `remembered decision ${remembered.id}`,
      );
    const match = this.matchRule(kind, title, subject);
    if (match)
      return answer(
        match.rule.action === "allow",
        `config rule permissions.rules[${match.index}]`,
      );
    switch (this.options.mode) {
      case "approve-all":
        return answer(true, "approve-all mode");
      case "deny-all":
        return answer(
          false,
          `deny-all mode refused "${title || subject}" (${kind})`,
        );
      case "approve-reads":
        return READ_KINDS.has(kind)
          ? answer(true, `approve-reads mode allows ${kind}`)
          : answer(
              false,
              `approve-reads mode refused "${title || subject}" (kind ${kind})`,
            );
      case "ask":
        return this.ask(request, workspace, signal, subjects);
    }
  }

  private async ask(
    request: RequestPermissionRequest,
    workspace: string,
    signal: AbortSignal,
    subjects: ToolSubjects,
  ) {
    const kind = request.toolCall.kind ?? "other";
    const approver = this.options.approver;
    if (!approver) {
      const reason = `nobody to ask (no approver); refused "${request.toolCall.title ?? subjectOf(request)}" (${kind})`;
      return {
        outcome: outcomeFor("reject", request.options),
        reason,
        byPolicy: true,
      };
    }
    const outcome = await approver(request, signal);
    const chosen =
      outcome.outcome === "selected"
        ? request.options.find((o) => o.optionId === outcome.optionId)
        : undefined;
    if (isAllowed(outcome, request.options))
      this.grants.add(request, workspace, subjects);
    if (chosen?.kind === "allow_always" || chosen?.kind === "reject_always") {
      const decision = chosen.kind === "allow_always" ? "allow" : "reject";
      const kept = await this.remember(request, outcome, workspace, decision);
      return { outcome, reason: `approver chose ${chosen.kind}${kept}` };
    }
    return {
      outcome,
      reason: chosen ? `approver chose ${chosen.kind}` : "approver cancelled",
    };
  }

  /** The user whose remembered decisions answer in a session: its owner, else the operator. */
  private async ownerIn(sessionId: string): Promise<string> {
    return (await this.options.ownerOf?.(sessionId)) ?? OPERATOR;
  }

  // Remembers an "always" answer as its user's, when the session is theirs; in another user's
  // session it holds for this request only (issue 34). Returns what the reason adds.
  private async remember(
    request: RequestPermissionRequest,
    outcome: RequestPermissionOutcome,
    workspace: string,
    decision: "allow" | "reject",
  ): Promise<string> {
    const by = answeredBy(outcome);
    const owner = await this.ownerIn(request.sessionId);
    const user = rememberedFor(by, owner);
    if (!user)
      return `; not remembered: ${by} answered in a session of ${owner}`;
    const kind = request.toolCall.kind ?? "other";
    const subject = this.masked(subjectOf(request));
    this.options.memory?.remember({ user, workspace, kind, subject, decision });
    return "";
  }

  // Governs an fs or terminal request itself: rules, then what this turn was granted, then
  // the mode. In `ask` mode an ungranted write or command is put to the approver.
  // `commandKeys` are the forms a terminal's command is looked up under (tool-call-scope).
  async check(
    sessionId: string,
    workspace: string,
    access: Access,
    subject: string,
    signal: AbortSignal,
    commandKeys: string[] = [subject],
  ): Promise<Verdict> {
    const kind = KIND_OF_ACCESS[access];
    const match = this.matchRule(
      kind,
      subject,
      access === "execute" ? subject : undefined,
    );
    if (match)
      return {
        allowed: match.rule.action === "allow",
        reason: `config rule permissions.rules[${match.index}]`,
      };
    const execute = access === "execute";
    const keys = execute ? commandKeys : [pathKey(subject, workspace)];
    const grant = this.grants.find(sessionId, access, keys);
    if (grant)
      return {
        allowed: true,
        reason: `granted for this turn by the allowed "${grant.title}"`,
      };
    const mode = this.options.mode;
    if (mode === "approve-all")
      return { allowed: true, reason: "approve-all mode" };
    if (mode === "deny-all")
      return { allowed: false, reason: `deny-all mode refuses ${access}` };
    if (access === "read")
      return {
        allowed: true,
        reason: `${mode} mode allows reads inside the roots`,
      };
    if (mode === "approve-reads" || !this.options.approver) {
      return {
        allowed: false,
        reason: `${mode} mode refuses ${access} without a granted permission`,
      };
    }
    return this.askFor(sessionId, workspace, access, subject, keys, signal);
  }

  // A command acphub runs for a workflow's shell step: rules, then `deny-all`, then the
  // workflow file's pre-approval of its literal command, then this turn's grants, then the
  // mode. Nothing asked for it first, so in `approve-reads` and `ask` it is put to the
  // approver, and refused when nobody can answer.
  async checkOwnCommand(
    sessionId: string,
    workspace: string,
    command: string,
    signal: AbortSignal,
    keys: string[],
    preapproved: boolean,
  ): Promise<Verdict> {
    const match = this.matchRule("execute", command, command);
    if (match)
      return {
        allowed: match.rule.action === "allow",
        reason: `config rule permissions.rules[${match.index}]`,
      };
    const mode = this.options.mode;
    if (mode === "deny-all")
      return { allowed: false, reason: "deny-all mode refuses execute" };
    if (preapproved)
      return { allowed: true, reason: "pre-approved by the workflow file" };
    const grant = this.grants.find(sessionId, "execute", keys);
    if (grant)
      return {
        allowed: true,
        reason: `granted for this turn by "${grant.title}"`,
      };
    if (mode === "approve-all")
      return { allowed: true, reason: "approve-all mode" };
    if (!this.options.approver)
      return {
        allowed: false,
        reason: `${mode} mode: nobody to ask (no approver) for a workflow command`,
      };
    return this.askFor(sessionId, workspace, "execute", command, keys, signal);
  }

  // Puts one fs or terminal request to the approver as a permission question.
  private async askFor(
    sessionId: string,
    workspace: string,
    access: Access,
    subject: string,
    keys: string[],
    signal: AbortSignal,
  ): Promise<Verdict> {
    const execute = access === "execute";
    const request: RequestPermissionRequest = {
      sessionId,
      toolCall: {
        toolCallId: `acphub-${access}-${Date.now()}`,
        title: `${access === "write" ? "Write" : "Run"} ${subject}`,
        kind: KIND_OF_ACCESS[access] as "edit",
        rawInput: execute ? { command: subject } : { path: subject },
      },
      options: STANDARD_OPTIONS,
    };
    const subjects = execute
      ? { paths: [], commands: keys }
      : { paths: [subject], commands: [] };
    const { outcome, reason } = await this.ask(
      request,
      workspace,
      signal,
      subjects,
    );
    return { allowed: isAllowed(outcome, request.options), reason };
  }
}
