// Remembered "always allow" / "always reject" answers, per workspace, tool kind and command or
// title, persisted as JSON under the state folder so they outlive the process.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface RememberedDecision {
  id: string;
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

  list(): RememberedDecision[] {
    return [...this.decisions];
  }

  lookup(
    workspace: string,
    kind: string,
    subject: string,
  ): RememberedDecision | undefined {
    return this.decisions.find(
      (d) =>
        d.workspace === workspace && d.kind === kind && d.subject === subject,
    );
  }

  remember(
    entry: Omit<RememberedDecision, "id" | "createdAt">,
  ): RememberedDecision {
    this.decisions = this.decisions.filter(
      (d) =>
        !(
          d.workspace === entry.workspace &&
          d.kind === entry.kind &&
          d.subject === entry.subject
        ),
    );
    const decision = {
      ...entry,
      id: randomUUID().slice(0, 8),
      createdAt: new Date().toISOString(),
    };
    this.decisions.push(decision);
    this.save();
    return decision;
  }

  /** Forgets one decision by id, or all with "all"; returns how many were removed. */
  forget(id: string): number {
    const before = this.decisions.length;
    this.decisions =
      id === "all" ? [] : this.decisions.filter((d) => d.id !== id);
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

function load(file: string): RememberedDecision[] {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return Array.isArray(value) ? value.filter(isDecision) : [];
  } catch {
    return [];
  }
}

function isDecision(value: unknown): value is RememberedDecision {
  const d = value as Partial<RememberedDecision> | null;
  return (
    typeof d?.id === "string" &&
    typeof d.workspace === "string" &&
    typeof d.kind === "string" &&
    typeof d.subject === "string" &&
    (d.decision === "allow" || d.decision === "reject")
  );
}
