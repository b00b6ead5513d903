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

/** The session's model: the agent's current model, else a config option of category "model". */
export function modelOf(s: SessionSettings): string | undefined {
  if (typeof s.models?.currentModelId === "string")
    return s.models.currentModelId;
  const option = s.configOptions?.find(
    (o) => o["category"] === "model" || o.id === "model",
  );
  const value = option?.currentValue;
  return typeof value === "string" ? value : undefined;
}

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
 * The per-session cache, written through to the ledger (asynchronously, in order per session).
 * It holds the sessions used last, at most `maxCached`: a session closed or deleted leaves it at
 * once, one the ledger evicted (or another process changed) ages out; whatever left it is read
 * from the ledger again when used, after its own pending writes.
 */
export class SettingsStore {
  private readonly cache = new Map<string, SessionSettings>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly writes = new Map<string, Promise<void>>();
  private changeCount = 0;

  constructor(
    private readonly ledger: LedgerPort,
    private readonly maxCached = MAX_CACHED_SETTINGS,
  ) {}

  /** How many sessions the cache holds now. */
  get size(): number {
    return this.cache.size;
  }

  /** The session's settings: the cache, else the ledger, else none. */
  async get(sessionId: string): Promise<SessionSettings> {
    await this.load(sessionId);
    return this.current(sessionId);
  }

  // The cached settings, counted as a use (loaded before; a value aged out since reads none).
  private current(sessionId: string): SessionSettings {
    const settings = this.cache.get(sessionId) ?? {};
    this.remember(sessionId, settings);
    return settings;
  }

  // Fills the cache from the ledger once, however many ask at once; a value set meanwhile wins.
  private load(sessionId: string): Promise<void> {
    if (this.cache.has(sessionId)) return Promise.resolve();
    let loading = this.loading.get(sessionId);
    if (!loading) {
      const written = this.writes.get(sessionId) ?? Promise.resolve();
      loading = written
        .catch(() => undefined)
        .then(() => this.ledger.getSession(sessionId))
        .then((record) => {
          if (!this.cache.has(sessionId))
            this.remember(
              sessionId,
              (record?.settings ?? {}) as SessionSettings,
            );
        })
        .finally(() => this.loading.delete(sessionId));
      this.loading.set(sessionId, loading);
    }
    return loading;
  }

  /** A session record read by `read`, its settings taken into the cache unless something newer
   *  may be known here (a change made while it was read, or the session cached or loading):
   *  spares reading the record again for them (session/load). */
  async withRecord<R extends { id: string; settings: Params | null }>(
    read: () => Promise<R>,
  ): Promise<R> {
    const changes = this.changeCount;
    const record = await read();
    const id = record.id;
    if (
      changes === this.changeCount &&
      !this.cache.has(id) &&
      !this.loading.has(id)
    )
      this.remember(id, (record.settings ?? {}) as SessionSettings);
    return record;
  }

  /** Replaces the session's settings; resolves once stored (writes of a session keep order). */
  set(sessionId: string, settings: SessionSettings): Promise<void> {
    this.changeCount += 1;
    this.remember(sessionId, settings);
    const before = this.writes.get(sessionId) ?? Promise.resolve();
    const write = before
      .catch(() => undefined)
      .then(() => this.ledger.saveSettings(sessionId, settings as Params));
    this.writes.set(sessionId, write);
    const done = () => {
      if (this.writes.get(sessionId) === write) this.writes.delete(sessionId);
    };
    write.then(done, done);
    return write;
  }

  /** Merges what an agent answered (new, load, resume, fork, set_*) into the settings. */
  async merge(sessionId: string, answer: unknown): Promise<void> {
    const found = settingsIn(answer);
    if (!found) return;
    await this.load(sessionId);
    await this.set(sessionId, { ...this.current(sessionId), ...found });
  }

  /** Applies a session/update; true when it changed the settings. */
  async apply(sessionId: string, update: Params): Promise<boolean> {
    if (!changesSettings(update)) return false;
    await this.load(sessionId);
    const next = afterUpdate(this.current(sessionId), update);
    if (next) await this.set(sessionId, next);
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

/** Whether an update changes the settings kept for its session (a mode, a config option):
 *  checked before `apply`, so that the relay spends no promise on the others. */
export function changesSettings(update: Params): boolean {
  const kind = update["sessionUpdate"];
  return kind === "current_mode_update" || kind === "config_option_update";
}
