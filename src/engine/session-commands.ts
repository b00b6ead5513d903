// Commands acphub runs itself inside a session (workflows): advertised next to the agent's own
// in available_commands_update, and run when a prompt starts with `/name`.
import type { RawContentBlock } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { errorMessage } from "../shared/errors.js";
import type { GatewayParts } from "./parts.js";
import type { SessionCommandsPort, SessionRecord } from "./ports.js";
import type { TurnClaim } from "./turn-gate.js";

type CommandParts = Pick<
  GatewayParts,
  "ledger" | "editor" | "logger" | "events"
>;

/** The session command a prompt names, and its input; undefined when it names none. */
export function commandOf(
  commands: SessionCommandsPort | undefined,
  cwd: string,
  prompt: RawContentBlock[],
): { name: string; input: string } | undefined {
  if (!commands) return undefined;
  const text = prompt
    .map((b) =>
      b.type === "text" ? String((b as { text?: unknown }).text ?? "") : "",
    )
    .join("");
  if (commands.exclusive) return { name: commands.exclusive, input: text };
  const match = /^\/([a-z][a-z0-9-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || !commands.list(cwd).some((c) => c.name === match[1]))
    return undefined;
  return { name: match[1]!, input: match[2] ?? "" };
}

/** The session command a prompt runs: the one it names, else the one a crash interrupted. */
export async function promptCommand(
  commands: SessionCommandsPort | undefined,
  record: Pick<SessionRecord, "id" | "cwd">,
  prompt: RawContentBlock[],
): Promise<{ name: string; input: string } | undefined> {
  const named = commandOf(commands, record.cwd, prompt);
  if (named || !commands?.interrupted) return named;
  const name = await commands.interrupted(record.id);
  return name === undefined ? undefined : { name, input: "" };
}

/**
 * Pushes acphub's commands to a new session's relay on the next tick (after the session/new
 * answer), which adds them to an available_commands_update; resolves once pushed. Undefined when
 * there is nothing to advertise.
 */
export function advertiseCommands(
  parts: Pick<GatewayParts, "commands" | "sessions">,
  hubId: string,
  cwd: string,
): Promise<void> | undefined {
  if (!parts.commands?.list(cwd).length) return undefined;
  const relay = parts.sessions.get(hubId)?.relay;
  if (!relay) return undefined;
  return new Promise<void>((resolve) =>
    setImmediate(() => {
      relay.pushOutside({
        type: "session_update",
        sessionId: hubId,
        update: {
          sessionUpdate: "available_commands_update",
          availableCommands: [],
        },
      });
      resolve();
    }),
  );
}

// Runs a session command as the session's turn, under the claim on it its caller holds;
// session/cancel (the gate cancels the claim) and the prompt's own signal stop the run.
export async function runSessionCommand(
  parts: CommandParts,
  commands: SessionCommandsPort,
  record: SessionRecord,
  prompt: RawContentBlock[],
  command: { name: string; input: string; author?: string },
  signal: AbortSignal,
  claim: TurnClaim,
): Promise<Params> {
  const { ledger, editor } = parts;
  const stop = AbortSignal.any([signal, claim.signal]);
  const send = async (update: Record<string, unknown>) => {
    const seq = await ledger.append(record.id, "update", { update });
    await editor.send(
      "session/update",
      { sessionId: record.id, update },
      { seq },
    );
  };
  try {
    // The hub user who sent it (issue 22), as with an agent's prompt (turns.ts).
    const author =
      command.author !== undefined ? { author: command.author } : {};
    const promptSeq = await ledger.append(record.id, "prompt", {
      prompt,
      ...author,
    });
    parts.events.turnStarted({
      sessionId: record.id,
      promptSeq,
      prompt,
      ...author,
    });
    const meta = parts.events.promptMeta(record.id);
    const { stopReason } = await commands.run(command.name, {
      ...(meta ? { meta } : {}),
      sessionId: record.id,
      cwd: record.cwd,
      input: command.input,
      mcpServers: (record.request["mcpServers"] as never[]) ?? [],
      send,
      tell: (text) => editor.tell(record.id, text),
      request: (method, params, s) => editor.request(method, params, s),
      signal: stop,
    });
    await ledger.append(record.id, "turn_end", { stopReason });
    parts.events.turnEnded({ sessionId: record.id, stopReason });
    return { stopReason };
  } catch (error) {
    const message = errorMessage(error);
    await ledger
      .append(record.id, "turn_end", { error: message })
      .catch(() => undefined);
    parts.events.turnEnded({ sessionId: record.id, error: message });
    throw error;
  }
}
