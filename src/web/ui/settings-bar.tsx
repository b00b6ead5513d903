// Mode and config option selectors (model, reasoning effort, …) when the agent offers them;
// one per choice (shown, not changeable, to a viewer).
import type { HubStore } from "../state/hub-store.js";
import {
  modeOption,
  type Params,
  type SessionModel,
} from "../state/session-model.js";

export function SettingsBar({
  model,
  store,
  readOnly = false,
}: {
  model: SessionModel;
  store: HubStore;
  /** A viewer sees the settings but may not change them. */
  readOnly?: boolean;
}) {
  // One control per choice: a config option for the mode replaces the mode list (as ACP says).
  const modes = modeOption(model) ? [] : (model.modes?.availableModes ?? []);
  const selects = model.configOptions.filter((o) => o["type"] === "select");
  if (modes.length === 0 && selects.length === 0) return null;
  return (
    <div class="settings">
      {modes.length > 0 && (
        <label>
          Mode{" "}
          <select
            aria-label="Mode"
            disabled={readOnly}
            value={model.modes?.currentModeId}
            onChange={(e) =>
              void store.set("session/set_mode", {
                modeId: (e.target as HTMLSelectElement).value,
              })
            }
          >
            {modes.map((m) => (
              <option key={String(m["id"])} value={String(m["id"])}>
                {String(m["name"] ?? m["id"])}
              </option>
            ))}
          </select>
        </label>
      )}
      {selects.map((o) => (
        <label key={String(o["id"])}>
          {String(o["name"] ?? o["id"])}{" "}
          <select
            aria-label={String(o["name"] ?? o["id"])}
            disabled={readOnly}
            value={String(o["currentValue"] ?? "")}
            onChange={(e) =>
              void store.set("session/set_config_option", {
                configId: o["id"],
                value: (e.target as HTMLSelectElement).value,
              })
            }
          >
            {((o["options"] as Params[] | undefined) ?? []).map((v) => (
              <option key={String(v["value"])} value={String(v["value"])}>
                {String(v["name"] ?? v["value"])}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}
