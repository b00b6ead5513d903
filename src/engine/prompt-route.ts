// Where a prompt goes once its session is known: one of acphub's session commands (a workflow's
// /name) runs here; anything else, after the budget admits it, is a turn of the agent's live
// session (restored first when it is not live), with the session's model noted.
import type { Params } from "../protocol/raw.js";
import { liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import type { SessionRecord } from "./ports.js";
import { promptCommand, runSessionCommand } from "./session-commands.js";
import { modelOf } from "./session-settings.js";
import { promptLive, promptOf } from "./turns.js";

/** One prompt for `routePrompt`: its params, its hub author, its cancel signal. */
export interface RoutedPrompt {
  params: Params;
  author: string | undefined;
  signal: AbortSignal;
  /** The session commands in progress, by session, for session/cancel. */
  commandRuns: Map<string, AbortController>;
}

// Runs a prompt of a known session: as a session command, or as the agent's turn.
export async function routePrompt(
  parts: GatewayParts,
  record: SessionRecord,
  p: RoutedPrompt,
): Promise<Params> {
  const { author, signal } = p;
  const prompt = promptOf(p.params, parts.limits.maxPromptBytes);
  const command = await promptCommand(parts.commands, record, prompt);
  if (command && parts.commands)
    return await runSessionCommand(
      parts,
      parts.commands,
      record,
      prompt,
      { ...command, author },
      signal,
      p.commandRuns,
    );
  const meta = p.params["_meta"] as Params | undefined;
  // A spent budget refuses the prompt before anything of it is recorded.
  await parts.budget?.admit({
    sessionId: record.id,
    agent: record.agent,
    ...(author !== undefined ? { user: author } : {}),
  });
  const live = await liveSession(parts, record);
  const model = modelOf(await parts.settings.get(record.id));
  return await promptLive(
    parts,
    record,
    live,
    {
      blocks: prompt,
      ...(meta ? { meta } : {}),
      ...(author ? { author } : {}),
      ...(model ? { model } : {}),
    },
    signal,
  );
}
