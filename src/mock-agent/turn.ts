// Runs one scenario turn of the mock agent against the client, step by step.
import { RequestError, type PromptResponse } from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Scenario, Step } from "./scenario.js";
import {
  callClient,
  elicit,
  extRequest,
  permission,
  terminal,
} from "./client-steps.js";
import { shell } from "./own-shell.js";
import { exportOwnSpan } from "./otel-span.js";
import { EndTurn, say, update, type TurnContext } from "./turn-context.js";

export type { TurnContext };

function chunkText(text: string, chunks: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, chunks)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

// Executes one step; throws EndTurn to finish the turn early.
async function runStep(ctx: TurnContext, step: Step): Promise<void> {
  const [kind, value] = Object.entries(step).find(
    ([k]) => !["chunks", "repeat", "onReject", "_meta"].includes(k),
  ) as [string, unknown];
  const spec = (value ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "text":
    case "thought": {
      const sessionUpdate =
        kind === "text" ? "agent_message_chunk" : "agent_thought_chunk";
      const whole = String(value).repeat(Number(step["repeat"] ?? 1));
      for (const piece of chunkText(whole, Number(step["chunks"] ?? 1))) {
        await update(
          ctx,
          { sessionUpdate, content: { type: "text", text: piece } },
          step["_meta"],
        );
      }
      return;
    }
    case "toolCall":
      return update(
        ctx,
        { sessionUpdate: "tool_call", ...spec },
        step["_meta"],
      );
    case "toolCallUpdate":
      return update(
        ctx,
        { sessionUpdate: "tool_call_update", ...spec },
        step["_meta"],
      );
    case "plan":
      return update(ctx, { sessionUpdate: "plan", entries: value });
    case "usage":
      return update(ctx, { sessionUpdate: "usage_update", ...spec });
    case "sessionInfo":
      return update(ctx, { sessionUpdate: "session_info_update", ...spec });
    case "commands":
      return update(ctx, {
        sessionUpdate: "available_commands_update",
        availableCommands: value,
      });
    case "update":
      return update(ctx, spec, step["_meta"]);
    case "permission":
      return permission(ctx, spec, step);
    case "readFile": {
      const r = await callClient(
        ctx,
        "fs/read_text_file",
        methods.client.fs.readTextFile,
        spec,
      );
      if (r.ok)
        await say(
          ctx,
          `read: ${JSON.stringify((r.result as { content: string }).content)}\n`,
        );
      return;
    }
    case "writeFile": {
      const r = await callClient(
        ctx,
        "fs/write_text_file",
        methods.client.fs.writeTextFile,
        spec,
      );
      if (r.ok) await say(ctx, `wrote ${String(spec["path"])}\n`);
      return;
    }
    case "terminal":
      return terminal(ctx, spec);
    case "extRequest":
      return extRequest(ctx, spec);
    case "extNotification":
      return ctx.client.notify(String(spec["method"]), spec["params"] ?? {});
    case "elicit":
      return elicit(ctx, spec);
    case "promptMeta":
      return say(
        ctx,
        `prompt _meta: ${JSON.stringify(ctx.promptMeta ?? null)}\n`,
      );
    case "state":
      return say(ctx, `state: ${JSON.stringify(ctx.report?.() ?? null)}\n`);
    case "history":
      return say(ctx, `history: ${historyText(ctx)}\n`);
    case "sleep":
      try {
        await sleep(Number(value), undefined, { signal: ctx.signal });
      } catch {
        throw new EndTurn("cancelled");
      }
      return;
    case "waitFile":
      return waitFile(ctx, String(value));
    case "hang":
      return new Promise<void>(() => setInterval(() => undefined, 60_000));
    case "exit":
      process.exit(Number(value));
    // falls through (never reached)
    case "env":
      return say(ctx, envReport(value));
    case "pid":
      return say(ctx, `pid: ${process.pid}\n`);
    case "otelSpan":
      return say(ctx, await exportOwnSpan(String(value)));
    case "shell":
      return shell(ctx, String(value));
    case "stderr":
      process.stderr.write(String(value) + "\n");
      return;
    case "garbage":
      for (let i = 0; i < Number(step["repeat"] ?? 1); i++)
        ctx.writeRaw(String(value));
      return;
    case "oversized":
      return ctx.writeRaw("x".repeat(Number(value)));
    case "error":
      throw new RequestError(
        Number(spec["code"] ?? -32603),
        String(spec["message"] ?? "mock error"),
      );
    case "stop":
      throw new EndTurn(value as PromptResponse["stopReason"]);
  }
}

// The names of this process's variables; with a list of names, their values too (one a line).
function envReport(value: unknown): string {
  const names = `env: ${Object.keys(process.env).sort().join(",")}\n`;
  if (!Array.isArray(value)) return names;
  const values = value.map(
    (n) => `${String(n)}=${process.env[String(n)] ?? ""}\n`,
  );
  return names + values.join("");
}

// The user text of the session so far, joined, for the `history` step.
function historyText(ctx: TurnContext): string {
  return (ctx.history?.() ?? [])
    .filter((u) => u["sessionUpdate"] === "user_message_chunk")
    .map((u) => (u["content"] as { text?: string } | undefined)?.text ?? "")
    .join(" | ");
}

export async function runTurn(
  ctx: TurnContext,
  scenario: Scenario,
): Promise<PromptResponse> {
  try {
    for (const step of scenario.steps) {
      if (ctx.signal.aborted) throw new EndTurn("cancelled");
      await runStep(ctx, step);
    }
  } catch (error) {
    if (error instanceof EndTurn) return { stopReason: error.stopReason };
    throw error;
  }
  if (ctx.signal.aborted) return { stopReason: "cancelled" };
  const stopReason = (scenario.stopReason ??
    "end_turn") as PromptResponse["stopReason"];
  return {
    stopReason,
    ...(scenario.usage ? { usage: scenario.usage } : {}),
    ...(scenario._meta ? { _meta: scenario._meta } : {}),
  };
}

// Lets a test order the agent's next step after something it did itself (no sleeps to guess).
async function waitFile(ctx: TurnContext, path: string): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 20) {
    if (waited >= 60_000)
      throw new Error(`waitFile: ${path} did not appear in 60 s`);
    try {
      await sleep(20, undefined, { signal: ctx.signal });
    } catch {
      throw new EndTurn("cancelled");
    }
  }
}
