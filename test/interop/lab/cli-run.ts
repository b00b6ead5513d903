// `acphub run --json` as the lab runs it: one process per turn, its NDJSON parsed, with a hook
// to signal it once something streamed.
import { spawn } from "node:child_process";
import { acphubArgv, type Lab } from "./lab.js";

export interface RunTurn {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: Record<string, unknown>[];
  stderr: string;
}

/** Runs one turn; `interrupt` sends that signal once the stdout contains `when`. */
export function runTurn(
  lab: Lab,
  args: string[],
  interrupt?: { when: string; signal: NodeJS.Signals },
): Promise<RunTurn> {
  const child = spawn(
    process.execPath,
    acphubArgv("run", "--json", "--cwd", lab.work, ...args),
    {
      env: lab.acphubEnv,
      cwd: lab.work,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let sent = false;
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (interrupt && !sent && stdout.includes(interrupt.when)) {
      sent = true;
      child.kill(interrupt.signal);
    }
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
  return new Promise((resolve) =>
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const lines = stdout
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, signal, lines, stderr });
    }),
  );
}

/** The updates among run's NDJSON lines. */
export function runUpdates(t: RunTurn): Record<string, unknown>[] {
  return t.lines.filter((l) => l["type"] === "session_update");
}

/** The result line (stopReason and the agent's prompt response). */
export function runResult(t: RunTurn): Record<string, unknown> | undefined {
  return t.lines.find((l) => l["type"] === "result");
}

/** Permission events per tool call id. */
export function runQuestions(t: RunTurn): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of t.lines.filter((x) => x["type"] === "permission")) {
    const req = l["request"] as
      { toolCall?: { toolCallId?: string } } | undefined;
    const id = String(req?.toolCall?.toolCallId);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
