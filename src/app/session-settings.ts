// What chat's /mode, /model and /config read and change of a session: its modes, its model —
// the agent's model list (session/set_model), else its config option of category "model" — and
// its config options.
import type { Gateway } from "../engine/gateway.js";

export interface Mode {
  id: string;
  name?: string;
}
export interface Models {
  currentModelId: string;
  availableModels: { modelId: string; name?: string }[];
}
export interface ConfigOption {
  id: string;
  name?: string;
  category?: string | null;
  currentValue?: unknown;
  options?: { value: string; name?: string }[];
}
export interface SessionSettings {
  modes?: { currentModeId: string; availableModes: Mode[] };
  models?: Models;
  configOptions?: ConfigOption[];
}

// The session's settings as the gateway last heard them from the agent.
export async function sessionSettings(
  gateway: Gateway,
  sessionId: string,
): Promise<SessionSettings> {
  return (await gateway.sessionState(sessionId)) as SessionSettings;
}

// The config option that stands for the model when the agent lists no models.
export function modelOption(s: SessionSettings): ConfigOption | undefined {
  return s.configOptions?.find(
    (o) => o.category === "model" || o.id === "model",
  );
}
