// `_acphub/terminal/output`: the output of a terminal the hub's own host runs for a session's
// agent, for a client attached to that session (ACP gives a client no way to read a terminal it
// does not own, so a tool call's `{type: "terminal"}` content would show only an id).
import type { HubClient } from "./attachments.js";
import type { SessionHub } from "./session-hub.js";
import type { Params } from "../protocol/raw.js";
import {
  invalidParams,
  notServed,
  resourceNotFound,
} from "../protocol/wire-errors.js";

export const TERMINAL_OUTPUT = "_acphub/terminal/output";

/** Reads a terminal of one agent's host: by the agent's own session id; throws when unknown. */
export type TerminalReader = (
  agent: string,
  agentSessionId: string,
  terminalId: string,
) => unknown;

// Answers the method: the session must be open on this connection and the terminal one the
// hub's host runs for it (live, or released and still kept).
export async function terminalOutput(
  hub: SessionHub,
  read: TerminalReader | undefined,
  client: HubClient,
  params: Params,
): Promise<unknown> {
  if (!read) throw notServed(TERMINAL_OUTPUT, "no host runs terminals here");
  const { sessionId, terminalId } = params;
  if (typeof sessionId !== "string" || typeof terminalId !== "string")
    throw invalidParams(
      `${TERMINAL_OUTPUT} needs {sessionId, terminalId} as strings`,
    );
  const record = await hub.attachedRecord(client, sessionId);
  if (!record.agentSessionId)
    throw resourceNotFound(`no terminal ${terminalId} in this session`);
  return read(record.agent, record.agentSessionId, terminalId);
}
