// The session methods acphub serves around the agent's own: set_mode, set_config_option and
// set_model (passed to the agent, the answer kept in the session's settings), status (from
// acphub's own view) and set_title (stored in the ledger, passed on when the agent can).
import { methods } from "../protocol/methods.js";
import { HubError } from "../shared/errors.js";
import type { LiveSession, SessionAccess } from "./session-access.js";
import { withMode, withModel } from "./session-settings.js";

type Params = Record<string, unknown>;

export const SET_MODEL = "session/set_model";

// Refuses a set_* call on a session whose agent reported no such setting.
function requireSetting(
  access: SessionAccess,
  hubId: string,
  key: "modes" | "models" | "configOptions",
  method: string,
): void {
  if (access.settings.get(hubId)[key]) return;
  throw new HubError(
    "UNSUPPORTED",
    `${access.agentName} reported no ${key} for session ${hubId}; ${method} needs them`,
  );
}

// Sends a session request to the agent with its own session id; the answer as received.
async function toAgent(
  live: LiveSession,
  method: string,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const answer = await live.agent.request<Params | null>(
    method,
    { ...params, sessionId: live.session.id },
    signal,
  );
  return answer ?? {};
}

/** session/set_mode: the agent switches; acphub's settings follow. */
export async function setSessionMode(
  access: SessionAccess,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = access.record(params["sessionId"]);
  const modeId = params["modeId"];
  if (typeof modeId !== "string")
    throw new HubError("USAGE", "session/set_mode needs a string modeId");
  requireSetting(access, record.id, "modes", methods.agent.session.setMode);
  const live = await access.live(record);
  const method = methods.agent.session.setMode;
  const answer = await toAgent(live, method, params, signal);
  const settings = withMode(access.settings.get(record.id), modeId);
  access.settings.set(record.id, settings);
  access.settings.merge(record.id, answer);
  return answer;
}

/** session/set_config_option: the agent answers the new options; acphub keeps them. */
export async function setSessionConfigOption(
  access: SessionAccess,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = access.record(params["sessionId"]);
  const method = methods.agent.session.setConfigOption;
  requireSetting(access, record.id, "configOptions", method);
  const live = await access.live(record);
  const answer = await toAgent(live, method, params, signal);
  access.settings.merge(record.id, answer);
  return answer;
}

/** session/set_model (legacy unstable): only for sessions that reported models. */
export async function setSessionModel(
  access: SessionAccess,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = access.record(params["sessionId"]);
  const modelId = params["modelId"];
  if (typeof modelId !== "string")
    throw new HubError("USAGE", "session/set_model needs a string modelId");
  requireSetting(access, record.id, "models", SET_MODEL);
  const live = await access.live(record);
  const answer = await toAgent(live, SET_MODEL, params, signal);
  access.settings.set(
    record.id,
    withModel(access.settings.get(record.id), modelId),
  );
  access.settings.merge(record.id, answer);
  return answer;
}

/** session/status: open while acphub holds the session live, saved when only in the ledger. */
export function sessionStatus(access: SessionAccess, params: Params): Params {
  const id = params["sessionId"];
  const record = access.record(id);
  return { status: access.current(record.id) ? "open" : "saved" };
}

/** session/set_title: stored in the ledger; the agent is told when it advertises titles. */
export async function setSessionTitle(
  access: SessionAccess,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = access.record(params["sessionId"]);
  const title =
    typeof params["title"] === "string" ? params["title"].trim() : "";
  if (!title)
    throw new HubError("USAGE", "session/set_title needs a non-empty title");
  access.ledger.updateSession(record.id, { title });
  const agent = await access.agent();
  if (agent.supports("title") && record.agentSessionId) {
    const live = await access.live(record);
    await toAgent(live, methods.agent.session.setTitle, params, signal).catch(
      (error: unknown) =>
        access.logger.warn({ err: error }, "agent could not set the title"),
    );
  }
  return { title };
}
