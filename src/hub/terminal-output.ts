// `_acphub/terminal/output`: the output of a terminal the hub's own host runs for a session's
// agent, for a client attached to that session (ACP gives a client no way to read a terminal it
// does not own, so a tool call's `{type: "terminal"}` content would show only an id).
import type { SessionRecord } from "../engine/ports.js";
import type { Params } from "../protocol/raw.js";
import {
  invalidParams,
  notServed,
  resourceNotFound,
} from "../protocol/wire-errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";

const TERMINAL_OUTPUT = HUB_METHOD.terminalOutput;

/** Reads a terminal of one agent process's host (by the pool's key of the process, see
 *  process-run.ts): by the agent's own session id; throws when unknown. */
export type TerminalReader = (
  process: string,
  agentSessionId: string,
  terminalId: string,
) => unknown;

// Refuses the method before its session is looked up: no host runs terminals here, or the
// params are not two strings.
export function terminalReader(
  read: TerminalReader | undefined,
  params: Params,
): TerminalReader {
  if (!read) throw notServed(TERMINAL_OUTPUT, "no host runs terminals here");
  const { sessionId, terminalId } = params;
  if (typeof sessionId !== "string" || typeof terminalId !== "string")
    throw invalidParams(
      `${TERMINAL_OUTPUT} needs {sessionId, terminalId} as strings`,
    );
  return read;
}

// Answers the method for a client with the session open on this connection, when the terminal
// is one the host of the session's agent process runs for it (live, or released and still kept).
export function terminalOutput(
  read: TerminalReader | undefined,
  record: SessionRecord,
  params: Params,
  process: string | undefined,
): unknown {
  const reader = terminalReader(read, params);
  const terminalId = String(params["terminalId"]);
  if (!record.agentSessionId || process === undefined)
    throw resourceNotFound(`no terminal ${terminalId} in this session`);
  return reader(process, record.agentSessionId, terminalId);
}
