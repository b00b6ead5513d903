// `acphub agents search` and `agents registry update`: the registry snapshot in use (shipped or
// refreshed), searched offline; refreshed from `registry.url` only when asked.
import type { AppContext } from "../config/context.js";
import { searchEntries } from "../registry/find.js";
import { planLaunch } from "../registry/plan.js";
import type { RegistryEntry } from "../registry/schema.js";
import {
  DEFAULT_REGISTRY_URL,
  loadRegistry,
  refreshRegistry,
  type LoadedRegistry,
} from "../registry/snapshot.js";

// The snapshot's facts a user is shown (where it came from, how old, its hash).
function snapshotInfo(loaded: LoadedRegistry) {
  return {
    origin: loaded.origin,
    date: loaded.meta.date,
    source: loaded.meta.source,
    sha256: loaded.meta.sha256,
    agents: loaded.registry.agents.length,
  };
}

// How the entry would launch here, or why it cannot.
function launchOf(entry: RegistryEntry): string {
  try {
    const plan = planLaunch(entry);
    return plan.distribution === "binary"
      ? `binary ${plan.binary!.platform}${plan.binary!.sha256 ? "" : " (no sha256)"}`
      : `${plan.distribution} ${plan.args.find((a) => a !== "-y") ?? ""}`;
  } catch {
    return "no build for this platform";
  }
}

// The entries matching every word, with the config name of those already added.
export function searchRegistry(ctx: AppContext, words: string[]) {
  const loaded = loadRegistry(ctx.paths.stateDir);
  const added = new Map(
    Object.entries(ctx.config.agents ?? {})
      .filter(([, e]) => e.registry)
      .map(([name, e]) => [
        e.registry!.id,
        { name, version: e.registry!.version },
      ]),
  );
  const agents = searchEntries(loaded.registry, words).map((e) => ({
    id: e.id,
    name: e.name,
    version: e.version,
    description: e.description,
    distributions: Object.keys(e.distribution),
    launch: launchOf(e),
    ...(added.has(e.id) ? { added: added.get(e.id) } : {}),
  }));
  return { snapshot: snapshotInfo(loaded), agents };
}

// The registry URL in use: the config's `registry.url`, else the public registry.
export function registryUrl(ctx: AppContext): string {
  return ctx.config.registry?.url ?? DEFAULT_REGISTRY_URL;
}

// Fetches the registry and replaces the stored snapshot when it is valid (else keeps the old).
export async function updateRegistrySnapshot(
  ctx: AppContext,
  signal: AbortSignal,
) {
  const before = previousSnapshot(ctx.paths.stateDir);
  const after = await refreshRegistry(
    registryUrl(ctx),
    ctx.paths.stateDir,
    signal,
  );
  const old = new Map(before?.registry.agents.map((e) => [e.id, e.version]));
  const changed = after.registry.agents
    .filter((e) => old.get(e.id) !== e.version)
    .map((e) => ({ id: e.id, from: old.get(e.id) ?? null, to: e.version }));
  return {
    snapshot: snapshotInfo(after),
    previous: before ? snapshotInfo(before) : null,
    changed,
    dir: after.dir,
  };
}

// The snapshot an update replaces; a damaged one is what the update repairs, not a refusal.
function previousSnapshot(stateDir: string): LoadedRegistry | undefined {
  try {
    return loadRegistry(stateDir);
  } catch {
    return undefined;
  }
}
