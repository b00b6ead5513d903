// The session methods acphub serves around the agent's own: set_mode, set_config_option and
// set_model (passed to the agent, the answer kept in the session's settings), status (from
// acphub's own view) and set_title (stored in the ledger, passed on when the agent can).
import type { Params } from "../protocol/raw.js";
import { LEGACY_METHODS, methods } from "../protocol/methods.js";
import { HubError } from "../shared/errors.js";
import { liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";
import { requireRecord } from "./session-ops.js";
import type { LiveSession } from "./session-table.js";
import {
  withMode,
  withModel,
  type SessionSettings,
} from "./session-settings.js";

// Refuses a set_* call on a session whose agent reported no such setting.
async function requireSetting(
  parts: GatewayParts,
  hubId: string,
  key: "modes" | "models" | "configOptions",
  method: string,
): Promise<void> {
  if ((await parts.settings.get(hubId))[key]) return;
  throw new HubError(
    "UNSUPPORTED",
    `${parts.agentName} reported no ${key} for session ${hubId}; ${method} needs them`,
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

interface SetterSpec {
  method: string;
  /** The setting the session must have reported. */
  needs: "modes" | "models" | "configOptions";
  /** The string parameter naming the new value, and how the settings take it. */
  value?: {
    param: string;
    apply: (s: SessionSettings, v: string) => SessionSettings;
  };
}

// One set_* call: refused without the setting, else sent to the agent; the settings follow
// the value sent and then whatever the agent answered.
async function setSetting(
  parts: GatewayParts,
  spec: SetterSpec,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = await requireRecord(parts, params["sessionId"]);
  const value = spec.value && params[spec.value.param];
  if (spec.value && typeof value !== "string")
    throw new HubError(
      "USAGE",
      `${spec.method} needs a string ${spec.value.param}`,
    );
  await requireSetting(parts, record.id, spec.needs, spec.method);
  const live = await liveSession(parts, record);
  const answer = await toAgent(live, spec.method, params, signal);
  if (spec.value)
    await parts.settings.set(
      record.id,
      spec.value.apply(await parts.settings.get(record.id), value as string),
    );
  await parts.settings.merge(record.id, answer);
  return answer;
}

const SET_MODE: SetterSpec = {
  method: methods.agent.session.setMode,
  needs: "modes",
  value: { param: "modeId", apply: withMode },
};
const SET_CONFIG_OPTION: SetterSpec = {
  method: methods.agent.session.setConfigOption,
  needs: "configOptions",
};
const SET_MODEL_SPEC: SetterSpec = {
  method: LEGACY_METHODS.setModel,
  needs: "models",
  value: { param: "modelId", apply: withModel },
};

/** session/set_mode: the agent switches; acphub's settings follow. */
export const setSessionMode = (a: GatewayParts, p: Params, s?: AbortSignal) =>
  setSetting(a, SET_MODE, p, s);

/** session/set_config_option: the agent answers the new options; acphub keeps them. */
export const setSessionConfigOption = (
  a: GatewayParts,
  p: Params,
  s?: AbortSignal,
) => setSetting(a, SET_CONFIG_OPTION, p, s);

/** session/set_model (legacy unstable): only for sessions that reported models. */
export const setSessionModel = (a: GatewayParts, p: Params, s?: AbortSignal) =>
  setSetting(a, SET_MODEL_SPEC, p, s);

/** session/status: open while acphub holds the session live, saved when only in the ledger. */
export async function sessionStatus(
  parts: GatewayParts,
  params: Params,
): Promise<Params> {
  const id = params["sessionId"];
  const record = await requireRecord(parts, id);
  return { status: parts.sessions.alive(record.id) ? "open" : "saved" };
}

/** session/set_title: stored in the ledger; the agent is told when it advertises titles. */
export async function setSessionTitle(
  parts: GatewayParts,
  params: Params,
  signal?: AbortSignal,
): Promise<Params> {
  const record = await requireRecord(parts, params["sessionId"]);
  const title =
    typeof params["title"] === "string" ? params["title"].trim() : "";
  if (!title)
    throw new HubError("USAGE", "session/set_title needs a non-empty title");
  await parts.ledger.updateSession(record.id, { title });
  const agent = await parts.agents.get();
  if (agent.supports("title") && record.agentSessionId) {
    const live = await liveSession(parts, record);
    await toAgent(live, methods.agent.session.setTitle, params, signal).catch(
      (error: unknown) =>
        parts.logger.warn({ err: error }, "agent could not set the title"),
    );
  }
  return { title };
}
