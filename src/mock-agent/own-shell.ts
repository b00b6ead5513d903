// The mock agent's `shell` step: runs a script in its own process (as agents that do their own
// shell work do), so tests can try from inside an agent what a terminal request would try.
import { spawn } from "node:child_process";
import { say, type TurnContext } from "./turn-context.js";

const MAX_OUTPUT_BYTES = 64 * 1024;

// Runs `sh -c script` and reports its exit code and output (stdout and stderr) as one line.
export async function ownShell(ctx: TurnContext, script: string) {
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
  await say(ctx, `shell exit: ${code}; output: ${JSON.stringify(output)}\n`);
}
