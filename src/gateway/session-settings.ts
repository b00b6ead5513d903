// The modes, models and config options of each session, as the agent last reported them (in
// session/new, load, resume and fork answers, current_mode_update and config_option_update,
// and the answers to set_* calls), cached per session and persisted in the ledger so that
// `chat`, `session/load` and every other client show the truth.
import type { Params } from "../protocol/raw.js";
import type { LedgerPort } from "./ports.js";

export interface SessionSettings {
  modes?: { currentModeId: string; availableModes: unknown[] } & Params;
  models?: { currentModelId: string; availableModels: unknown[] } & Params;
  configOptions?: ({ id: string; currentValue?: unknown } & Params)[];
}

const KEYS = ["modes", "models", "configOptions"] as const;

/** The settings in an agent's answer (modes, models, configOptions), when it has any. */
export function settingsIn(answer: unknown): SessionSettings | undefined {
  if (answer === null || typeof answer !== "object") return undefined;
  const out: Params = {};
  for (const key of KEYS) {
    const value = (answer as Params)[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return Object.keys(out).length ? (out as SessionSettings) : undefined;
}

// The settings after one session/update, or undefined when the update changes none.
export function afterUpdate(
  settings: SessionSettings,
  update: Params,
): SessionSettings | undefined {
  switch (update["sessionUpdate"]) {
    case "current_mode_update":
      return typeof update["currentModeId"] === "string"
        ? withMode(settings, update["currentModeId"])
        : undefined;
    case "config_option_update":
      return Array.isArray(update["configOptions"])
        ? {
            ...settings,
            configOptions: update[
              "configOptions"
            ] as SessionSettings["configOptions"],
          }
        : undefined;
    default:
      return undefined;
  }
}

/** The settings with another current mode (when the session has modes). */
export function withMode(s: SessionSettings, modeId: string): SessionSettings {
  return s.modes ? { ...s, modes: { ...s.modes, currentModeId: modeId } } : s;
}

/** The settings with another current model (when the session has models). */
export function withModel(
  s: SessionSettings,
  modelId: string,
): SessionSettings {
  return s.models
    ? { ...s, models: { ...s.models, currentModelId: modelId } }
    : s;
}

/** How many sessions' settings the cache holds at most (the ledger holds them all). */
export const MAX_CACHED_SETTINGS = 256;

/**
 * The per-session cache, written through to the ledger. It holds the sessions used last, at
 * most `maxCached`: a session closed or deleted leaves it at once, one the ledger evicted (or
 * another process changed) ages out; whatever left it is read from the ledger again when used.
 */
export class SettingsStore {
  private readonly cache = new Map<string, SessionSettings>();

  constructor(
    private readonly ledger: LedgerPort,
    private readonly maxCached = MAX_CACHED_SETTINGS,
  ) {}

  /** How many sessions the cache holds now. */
  get size(): number {
    return this.cache.size;
  }

  /** The session's settings: the cache, else the ledger, else none. */
  get(sessionId: string): SessionSettings {
    const cached = this.cache.get(sessionId);
    if (cached) {
      this.remember(sessionId, cached);
      return cached;
    }
    const stored = this.ledger.getSession(sessionId)?.settings;
    const settings = (stored ?? {}) as SessionSettings;
    this.remember(sessionId, settings);
    return settings;
  }

  /** Replaces the session's settings and persists them. */
  set(sessionId: string, settings: SessionSettings): void {
    this.remember(sessionId, settings);
    this.ledger.saveSettings(sessionId, settings as Params);
  }

  /** Merges what an agent answered (new, load, resume, fork, set_*) into the settings. */
  merge(sessionId: string, answer: unknown): void {
    const found = settingsIn(answer);
    if (found) this.set(sessionId, { ...this.get(sessionId), ...found });
  }

  /** Applies a session/update; true when it changed the settings. */
  apply(sessionId: string, update: Params): boolean {
    const next = afterUpdate(this.get(sessionId), update);
    if (next) this.set(sessionId, next);
    return next !== undefined;
  }

  /** Drops a session that was closed or deleted. */
  forget(sessionId: string): void {
    this.cache.delete(sessionId);
  }

  // Puts the session last in the cache (most recently used), dropping the oldest past the bound.
  private remember(sessionId: string, settings: SessionSettings): void {
    this.cache.delete(sessionId);
    this.cache.set(sessionId, settings);
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.maxCached) break;
      this.cache.delete(oldest);
    }
  }
}
