// Runs one step of each kind and says how it ended: an agent turn in its own session, a shell
// command under the terminal policy, a gate, or several agent turns side by side.
import type { McpServer } from "@agentclientprotocol/sdk";
import { errorMessage } from "../shared/errors.js";
import type {
  GatePort,
  RunSink,
  ShellPort,
  ShellRunOptions,
  StepAgents,
  StepStatus,
} from "./ports.js";
import type { ParallelBranch } from "./schema.js";
import { stepAgentUpdate } from "./updates.js";

export interface StepResult {
  status: StepStatus;
  output: string;
  /** A gate nobody could answer: not written down, so a resumed run asks again. */
  unanswered?: boolean;
}

export interface ExecContext {
  agents: StepAgents;
  shell: ShellPort;
  gate: GatePort;
  sink: RunSink;
  cwd: string;
  /** Started step sessions, for the journal. */
  onSession?: (stepId: string, sessionId: string) => void;
}

/** Bytes of a command's output kept as the step's output. */
export const OUTPUT_TAIL_CHARS = 8000;

// How a step ended when its signal fired: a deadline, or a cancel.
export function abortStatus(signal: AbortSignal): StepStatus {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === "TimeoutError" ? "timeout" : "cancelled";
}

// One agent turn in a fresh session of that agent; the output is the reply's text.
export async function runAgentTurn(
  ctx: ExecContext,
  stepId: string,
  branch: Omit<ParallelBranch, "id" | "mcpServers">,
  prompt: string,
  mcpServers: McpServer[],
  signal: AbortSignal,
): Promise<StepResult> {
  let reply = "";
  let opened;
  try {
    opened = await ctx.agents.open(branch.agent, {
      cwd: ctx.cwd,
      mcpServers,
      stepId,
      signal,
    });
    ctx.onSession?.(stepId, opened.id);
    const { session } = opened;
    if (branch.mode) await session.setMode(branch.mode);
    for (const [id, value] of Object.entries(branch.configOptions ?? {}))
      await session.setConfigOption(id, value);
    signal.throwIfAborted();
    const turn = session.prompt([{ type: "text", text: prompt }], {});
    const stop = () => turn.cancel();
    signal.addEventListener("abort", stop, { once: true });
    try {
      for await (const event of turn) {
        opened.record(event);
        if (event.type !== "session_update") continue;
        const u = event.update as {
          sessionUpdate: string;
          content?: { type?: string; text?: string };
        };
        if (
          u.sessionUpdate === "agent_message_chunk" &&
          u.content?.type === "text"
        )
          reply += u.content.text ?? "";
        const shown = stepAgentUpdate(stepId, event.update);
        if (shown) ctx.sink.update(shown);
      }
      const result = await turn.result;
      opened.ended(result);
      if (signal.aborted) return { status: abortStatus(signal), output: reply };
      const ok = result.stopReason === "end_turn";
      return {
        status: ok ? "completed" : "failed",
        output: ok ? reply : `${reply}\n[stopped: ${result.stopReason}]`,
      };
    } finally {
      signal.removeEventListener("abort", stop);
    }
  } catch (error) {
    if (signal.aborted) return { status: abortStatus(signal), output: reply };
    return {
      status: "failed",
      output: `${reply}${reply ? "\n" : ""}${errorMessage(error)}`,
    };
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

// A shell step: exit status 0 completes it; the output is the tail of what it printed.
export async function runShell(
  ctx: ExecContext,
  command: string,
  signal: AbortSignal,
  options: ShellRunOptions,
): Promise<StepResult> {
  try {
    const { exitCode, output } = await ctx.shell.run(
      command,
      ctx.cwd,
      signal,
      options,
    );
    const tail = output.slice(-OUTPUT_TAIL_CHARS);
    if (signal.aborted) return { status: abortStatus(signal), output: tail };
    if (exitCode === 0) return { status: "completed", output: tail };
    return {
      status: "failed",
      output: `${tail}${tail.endsWith("\n") || !tail ? "" : "\n"}[exit ${exitCode ?? "signal"}]`,
    };
  } catch (error) {
    if (signal.aborted) return { status: abortStatus(signal), output: "" };
    return { status: "failed", output: errorMessage(error) };
  }
}

// Several agent turns at once; the step fails when any branch fails.
export async function runParallel(
  ctx: ExecContext,
  stepId: string,
  branches: {
    id: string;
    branch: ParallelBranch;
    prompt: string;
    mcpServers: McpServer[];
  }[],
  signal: AbortSignal,
): Promise<StepResult> {
  const results = await Promise.all(
    branches.map((b) =>
      runAgentTurn(ctx, b.id, b.branch, b.prompt, b.mcpServers, signal),
    ),
  );
  const output = results
    .map((r, i) => `## ${branches[i]!.id} (${r.status})\n${r.output}`)
    .join("\n\n");
  const bad = results.find((r) => r.status !== "completed");
  return { status: bad ? bad.status : "completed", output };
}
