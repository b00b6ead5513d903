// After a restoration, the settings acphub keeps and the agent's session agree again: the
// restored agent session (fresh, resumed or loaded) is switched back to the mode, model and
// config values the session had — real agents forget some of them on resume or load
// (claude-code-acp answers its default model, pi-acp its default thinking level).
import type { Params } from "../protocol/raw.js";
import { LEGACY_METHODS, methods } from "../protocol/methods.js";
import { errorMessage } from "../shared/errors.js";
import type { GatewayParts } from "./parts.js";
import type { AgentPort, AgentSessionPort } from "./ports.js";
import { settingsIn, type SessionSettings } from "./session-settings.js";

// The set_* requests that bring a fresh agent session to the kept settings.
function requestsFor(kept: SessionSettings, fresh: SessionSettings) {
  const out: [string, Params][] = [];
  const mode = kept.modes?.currentModeId;
  if (fresh.modes && mode && mode !== fresh.modes.currentModeId)
    out.push([methods.agent.session.setMode, { modeId: mode }]);
  const model = kept.models?.currentModelId;
  if (fresh.models && model && model !== fresh.models.currentModelId)
    out.push([LEGACY_METHODS.setModel, { modelId: model }]);
  for (const option of kept.configOptions ?? []) {
    const now = fresh.configOptions?.find((o) => o.id === option.id);
    if (
      now &&
      option.currentValue !== undefined &&
      option.currentValue !== now.currentValue
    )
      out.push([
        methods.agent.session.setConfigOption,
        { configId: option.id, value: option.currentValue },
      ]);
  }
  return out;
}

/** Brings settings and the restored agent session together (see the file comment). */
export async function reapplySettings(
  parts: Pick<GatewayParts, "settings" | "logger">,
  hubId: string,
  agent: AgentPort,
  session: AgentSessionPort,
): Promise<void> {
  const { settings: store, logger } = parts;
  const reported = settingsIn(session.state) ?? {};
  const kept = await store.get(hubId);
  if (!settingsIn(kept)) return store.merge(hubId, session.state);
  for (const [method, params] of requestsFor(kept, reported)) {
    try {
      await agent.request(method, { ...params, sessionId: session.id });
    } catch (error) {
      logger.warn(
        { sessionId: hubId, method, err: errorMessage(error) },
        "could not restore a session setting",
      );
      return store.set(hubId, { ...kept, ...reported });
    }
  }
}
