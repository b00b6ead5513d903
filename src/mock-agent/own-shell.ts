// The mock agent's `shell` step. By default it runs the script as any agent's terminal does:
// terminal/create through the client, so acphub's command policy and OS sandbox decide
// (issue 34: a prompt must not reach the hub's machine around them). Only when the operator
// launched the mock with --own-shell does it run `sh -c` in its own process (as agents that do
// their own shell work do), so tests can try from inside a sandboxed agent what it can reach.
import { spawn } from "node:child_process";
import { methods } from "../protocol/methods.js";
import { callClient } from "./client-steps.js";
import { say, type TurnContext } from "./turn-context.js";

const MAX_OUTPUT_BYTES = 64 * 1024;

// Runs the script and reports its exit code and output as one line.
export async function shell(ctx: TurnContext, script: string): Promise<void> {
  const { code, output } = ctx.ownShell
    ? await ownShell(ctx, script)
    : await clientShell(ctx, script);
  if (output === undefined) return;
  await say(ctx, `shell exit: ${code}; output: ${JSON.stringify(output)}\n`);
}

// `sh -c script` in this process.
async function ownShell(ctx: TurnContext, script: string) {
  const child = spawn("sh", ["-c", script], {
    stdio: ["ignore", "pipe", "pipe"],
    signal: ctx.signal,
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT_BYTES) output += chunk.toString("utf8");
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const code = await new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(null));
    child.once("close", (c) => resolve(c));
  });
  return { code, output: output as string | undefined };
}

// The script as a terminal the client hosts: create, wait, read, release (a refusal is
// reported by callClient as "shell failed: …").
async function clientShell(ctx: TurnContext, script: string) {
  const t = methods.client.terminal;
  const created = await callClient(ctx, "shell", t.create, {
    command: script,
    outputByteLimit: MAX_OUTPUT_BYTES,
  });
  if (!created.ok) return { code: null, output: undefined };
  const id = {
    terminalId: (created.result as { terminalId: string }).terminalId,
  };
  const exit = await callClient(ctx, "shell", t.waitForExit, id);
  const output = await callClient(ctx, "shell", t.output, id);
  await callClient(ctx, "shell", t.release, id);
  const code = exit.ok
    ? ((exit.result as { exitCode?: number | null }).exitCode ?? null)
    : null;
  const text = output.ok ? (output.result as { output?: string }).output : "";
  return { code, output: text ?? "" };
}
