#!/usr/bin/env node
// Runs an agent and records every line it writes to stdout (one JSON-RPC frame each) in a file,
// so the lab can compare what the agent sent with what acphub's editor received.
// Usage: node tee-agent.mjs RECORD_FILE COMMAND [ARGS...]
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [record, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
let pending = "";
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString("utf8");
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines)
    if (line.trim()) appendFileSync(record, line + "\n");
});
process.stdin.pipe(child.stdin);
child.stdin.on("error", () => undefined);
process.stdout.on("error", () => undefined);
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"])
  process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
