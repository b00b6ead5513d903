// Remembered "always allow" / "always reject" answers, per user, workspace, tool kind and
// command or title, persisted as JSON under the state folder so they outlive the process. A
// decision is its user's: it answers only in sessions that user owns (issue 34). Single-user
// runs and the serve token's holder are the operator, "admin"; decisions stored before users
// were recorded are the operator's.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import { ANSWERED_BY, BUILTIN_ADMIN } from "../contracts/users.js";

/** Whose decisions single-user runs make and use: the operator (the hub's built-in admin). */
export const OPERATOR = BUILTIN_ADMIN;

// Who chose an answer: the hub's stamp, else the operator (a single-user run's own approver).
export function answeredBy(outcome: RequestPermissionOutcome): string {
  const by = (outcome as { [ANSWERED_BY]?: unknown })[ANSWERED_BY];
  return typeof by === "string" ? by : OPERATOR;
}

export interface RememberedDecision {
  id: string;
  /** The user who made it, and whose sessions it answers in. */
  user: string;
  workspace: string;
  kind: string;
  /** The command (when the tool call carried one) or the title, matched exactly. */
  subject: string;
  decision: "allow" | "reject";
  createdAt: string;
}

export class DecisionMemory {
  private decisions: RememberedDecision[];

  constructor(private readonly file: string | undefined) {
    this.decisions = file ? load(file) : [];
  }

  static inStateDir(stateDir: string): DecisionMemory {
    return new DecisionMemory(join(stateDir, "permissions.json"));
  }

  /** Every decision, or one user's. */
  list(user?: string): RememberedDecision[] {
    return this.decisions.filter((d) => user === undefined || d.user === user);
  }

  lookup(
    user: string,
    workspace: string,
    kind: string,
    subject: string,
  ): RememberedDecision | undefined {
    return this.decisions.find((d) =>
      sameKey(d, { user, workspace, kind, subject }),
    );
  }

  remember(
    entry: Omit<RememberedDecision, "id" | "createdAt">,
  ): RememberedDecision {
    this.decisions = this.decisions.filter((d) => !sameKey(d, entry));
    const decision = {
      ...entry,
      id: randomUUID().slice(0, 8),
      createdAt: new Date().toISOString(),
    };
    this.decisions.push(decision);
    this.save();
    return decision;
  }

  /** Forgets one decision by id, or all with "all" (either only among `user`'s when named);
   *  returns how many were removed. */
  forget(id: string, user?: string): number {
    const before = this.decisions.length;
    this.decisions = this.decisions.filter(
      (d) =>
        !(
          (id === "all" || d.id === id) &&
          (user === undefined || d.user === user)
        ),
    );
    this.save();
    return before - this.decisions.length;
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.decisions, null, 2) + "\n", {
      mode: 0o600,
    });
    renameSync(tmp, this.file);
  }
}

type Key = Pick<RememberedDecision, "user" | "workspace" | "kind" | "subject">;

// Two decisions about the same thing for the same user (the later replaces the earlier).
function sameKey(a: Key, b: Key): boolean {
  return (
    a.user === b.user &&
    a.workspace === b.workspace &&
    a.kind === b.kind &&
    a.subject === b.subject
  );
}

// The stored decisions; one stored before decisions had users is the operator's.
function load(file: string): RememberedDecision[] {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(value)) return [];
    return value
      .filter(isDecision)
      .map((d) => ({ ...d, user: d.user ?? OPERATOR }));
  } catch {
    return [];
  }
}

function isDecision(
  value: unknown,
): value is Omit<RememberedDecision, "user"> & { user?: string } {
  const d = value as Partial<RememberedDecision> | null;
  return (
    typeof d?.id === "string" &&
    (d.user === undefined || typeof d.user === "string") &&
    typeof d.workspace === "string" &&
    typeof d.kind === "string" &&
    typeof d.subject === "string" &&
    (d.decision === "allow" || d.decision === "reject")
  );
}
