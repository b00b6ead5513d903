// What the runner needs from the outside, declared here and wired by the CLI: step agent
// sessions, a shell under the terminal policy, someone to answer gates, the client, the journal.
import type { McpServer } from "@agentclientprotocol/sdk";
import type { PromptResult, RunEvent } from "../contracts/events.js";
import type { AgentSessionPort } from "../engine/ports.js";

export interface StepSessionOptions {
  cwd: string;
  /** The workflow's and the step's servers (the editor's are merged in by the opener). */
  mcpServers: McpServer[];
  /** The step (or parallel branch) id, for the ledger's child-session record. */
  stepId: string;
  signal: AbortSignal;
}

export interface StepSession {
  /** acphub's id for the step's own session (a ledger child of the run's session). */
  id: string;
  session: AgentSessionPort;
  /** Keeps one of the step's events in its own session's history. */
  record(event: RunEvent): void;
  /** Keeps how the step's turn ended (its stop reason and token usage: budgets count it). */
  ended(result: PromptResult): void;
  close(): Promise<void>;
}

export interface StepAgents {
  open(agent: string, options: StepSessionOptions): Promise<StepSession>;
}

export interface ShellResult {
  exitCode: number | null;
  /** The tail of stdout and stderr together. */
  output: string;
}

export interface ShellRunOptions {
  /** The template values as variables (ACPHUB_INPUT, ACPHUB_STEP_<ID>_OUTPUT, …). */
  env: { name: string; value: string }[];
  /** The workflow file pre-approves this literal command: no permission question. */
  preapproved: boolean;
}

export interface ShellPort {
  run(
    command: string,
    cwd: string,
    signal: AbortSignal,
    options: ShellRunOptions,
  ): Promise<ShellResult>;
}

export interface GateQuestion {
  stepId: string;
  toolCallId: string;
  title: string;
  text: string;
}

export interface GatePort {
  /** True when approved, false when rejected, undefined when nobody could answer (not recorded). */
  ask(
    question: GateQuestion,
    signal: AbortSignal,
  ): Promise<boolean | undefined>;
}

/** The client of the run: session/update notifications it should see. */
export interface RunSink {
  update(update: Record<string, unknown>): void;
}

/** `waiting`: a gate nobody could answer (no terminal, no --approve); never a step_end. */
export type StepStatus =
  "completed" | "failed" | "rejected" | "waiting" | "cancelled" | "timeout";

export type JournalEntry =
  | {
      type: "run_start";
      runId: string;
      workflow: string;
      file: string;
      input: string;
      cwd: string;
    }
  | { type: "step_start"; step: string; attempt: number; sessions?: string[] }
  | {
      type: "step_end";
      step: string;
      attempt: number;
      status: StepStatus;
      output: string;
    }
  | { type: "run_end"; status: string; step?: string };

/** Where the run writes down its progress (the ledger), so it can continue after a crash. */
export interface RunJournal {
  /** Resolves once the entry is kept (the runner goes on only then). */
  record(entry: JournalEntry): Promise<void>;
}
