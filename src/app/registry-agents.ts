// `acphub agents add|update|remove`: registry entries become config entries the user can read
// and edit (`agents.NAME` with a `registry` block saying where it came from); binaries are
// installed under the state folder first, so the config never names a launch that is not there.
import { rmSync } from "node:fs";
import { BUILTIN_AGENTS } from "../agents/builtin-agents.js";
import type { AppContext } from "../config/context.js";
import type { AgentEntry } from "../config/schema.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { HubError } from "../shared/errors.js";
import { resolveEntry, packageBaseName } from "../registry/find.js";
import { agentStateDir, installBinary } from "../registry/install.js";
import { planLaunch, type LaunchPlan } from "../registry/plan.js";
import type { Registry, RegistryEntry } from "../registry/schema.js";
import { loadRegistry } from "../registry/snapshot.js";
import { writeAgentEntry } from "./agent-config-file.js";

export interface AddOptions {
  preview?: boolean;
  allowUnverified?: boolean;
  signal: AbortSignal;
}

export interface AddResult {
  name: string;
  configFile: string;
  entry: AgentEntry;
  preview: boolean;
  /** binary: where it is (or would be) installed. */
  installDir?: string;
  /** Said on stderr by the CLI: an unverified binary, a replaced entry. */
  warnings: string[];
}

// `ID[@VERSION]` → its parts (a scoped package name's leading `@` is not a version).
export function splitSpec(spec: string): { id: string; version?: string } {
  const at = spec.lastIndexOf("@");
  if (at <= 0) return { id: spec };
  return { id: spec.slice(0, at), version: spec.slice(at + 1) || undefined };
}

// The built-in agent this registry entry is, so its API-key variables pass to it as before.
function builtinEnv(entry: RegistryEntry): string[] | undefined {
  const pkg = entry.distribution.npx?.package;
  const base = pkg ? packageBaseName(pkg) : undefined;
  const match = BUILTIN_AGENTS.find(
    (b) =>
      b.name === entry.id ||
      b.bin.command === entry.id ||
      (b.npx && base === packageBaseName(b.npx.package)),
  );
  return match && match.env.length > 0 ? [...match.env] : undefined;
}

// The config entry for a plan (the binary's command is its path in the state folder).
function configEntry(
  entry: RegistryEntry,
  plan: LaunchPlan,
  command: string,
  previous?: AgentEntry,
): AgentEntry {
  const b = plan.binary;
  const unverified = b && !b.sha256;
  const passEnv = previous?.passEnv ?? builtinEnv(entry);
  return {
    ...previous,
    command,
    args: plan.args,
    ...(Object.keys(plan.env).length > 0
      ? { env: { ...plan.env, ...previous?.env } }
      : {}),
    ...(passEnv ? { passEnv } : {}),
    description: `${entry.name} ${plan.version}: ${entry.description}${unverified ? " (UNVERIFIED download: the registry gave no sha256)" : ""}`,
    registry: {
      id: entry.id,
      version: plan.version,
      distribution: plan.distribution,
      ...(b
        ? {
            archive: b.archive,
            ...(b.sha256
              ? { sha256: b.sha256.toLowerCase() }
              : { unverified: true as const }),
          }
        : {}),
    },
  };
}

// What is said loudly about a binary without sha256: installed anyway, or (preview) refused.
function unverifiedWarnings(
  entry: RegistryEntry,
  plan: LaunchPlan,
  options: AddOptions,
): string[] {
  const b = plan.binary;
  if (!b || b.sha256) return [];
  if (options.allowUnverified)
    return [
      `WARNING: ${options.preview ? "would install" : "installing"} "${entry.id}" ${plan.version} UNVERIFIED: the registry gives no sha256 for ${b.archive}; acphub cannot tell whether the download is the one the registry meant`,
    ];
  return options.preview
    ? [`"${entry.id}" gives no sha256: adding it needs --allow-unverified`]
    : [];
}

// Installs (unless previewing) what a plan needs and returns the config entry it makes.
async function realize(
  ctx: AppContext,
  entry: RegistryEntry,
  plan: LaunchPlan,
  options: AddOptions,
  previous?: AgentEntry,
) {
  const warnings = unverifiedWarnings(entry, plan, options);
  const b = plan.binary;
  if (!b)
    return {
      config: configEntry(entry, plan, plan.command, previous),
      warnings,
    };
  const installDir = `${agentStateDir(ctx.paths.stateDir, entry.id)}/${plan.version}`;
  if (options.preview)
    return {
      config: configEntry(
        entry,
        plan,
        `${installDir}/${b.cmd.replace(/^\.\//, "")}`,
        previous,
      ),
      warnings,
      installDir,
    };
  const installed = await installBinary({
    stateDir: ctx.paths.stateDir,
    id: entry.id,
    version: plan.version,
    target: b,
    allowUnverified: options.allowUnverified ?? false,
    signal: options.signal,
  });
  return {
    config: configEntry(entry, plan, installed.command, previous),
    warnings,
    installDir: installed.dir,
  };
}

// `agents add ID[@VERSION]`: resolves the id, installs, writes `agents.ID` in the config file.
export async function addRegistryAgent(
  ctx: AppContext,
  spec: string,
  options: AddOptions,
): Promise<AddResult> {
  const { id, version } = splitSpec(spec);
  const entry = resolveEntry(loadRegistry(ctx.paths.stateDir).registry, id);
  const name = entry.id;
  const existing = ctx.config.agents?.[name];
  if (existing && !existing.registry)
    throw new HubError(
      "CONFIG_INVALID",
      `config file ${ctx.paths.configFile} already has an agent "${name}" of its own; rename or remove it there first`,
    );
  const plan = planLaunch(entry, version);
  const done = await realize(ctx, entry, plan, options, existing);
  if (existing?.registry && !options.preview)
    done.warnings.push(
      `replaced "${name}" ${existing.registry.version} with ${plan.version}`,
    );
  if (!options.preview) {
    writeAgentEntry(ctx.paths.configFile, name, done.config);
    removeOldVersion(ctx, existing, plan.version);
  }
  const { config, ...rest } = done;
  return {
    name,
    configFile: ctx.paths.configFile,
    entry: config,
    preview: !!options.preview,
    ...rest,
  };
}

// A binary's previous version folder, once the config names the new one.
function removeOldVersion(
  ctx: AppContext,
  previous: AgentEntry | undefined,
  kept: string,
): void {
  const r = previous?.registry;
  if (r?.distribution !== "binary" || r.version === kept) return;
  rmSync(`${agentStateDir(ctx.paths.stateDir, r.id)}/${r.version}`, {
    recursive: true,
    force: true,
  });
}

// The config's agents added from the registry, by config name.
function registryAgents(ctx: AppContext): [string, AgentEntry][] {
  return Object.entries(ctx.config.agents ?? {}).filter(([, e]) => e.registry);
}

// The added agent `name` names (its config name, or its registry id).
export function findAdded(ctx: AppContext, name: string): [string, AgentEntry] {
  const added = registryAgents(ctx);
  const found =
    added.find(([n]) => n === name) ??
    added.find(([, e]) => e.registry?.id === name);
  if (found) return found;
  const own = ctx.config.agents?.[name];
  const names = added.map(([n]) => n);
  throw new HubError(
    "AGENT_NOT_FOUND",
    own
      ? `agent "${name}" was not added from the registry; edit ${ctx.paths.configFile} to change it`
      : `no agent "${name}" added from the registry${didYouMean(name, names)}; added: ${names.join(", ") || "none"}`,
    { details: { name, added: names } },
  );
}

export interface UpdateRow {
  name: string;
  id: string;
  from: string;
  to: string;
  updated: boolean;
  warnings: string[];
}

// `agents update [ID]`: every added agent (or one) moved to the snapshot's version.
export async function updateRegistryAgents(
  ctx: AppContext,
  name: string | undefined,
  options: AddOptions,
): Promise<UpdateRow[]> {
  const targets = name ? [findAdded(ctx, name)] : registryAgents(ctx);
  const registry = loadRegistry(ctx.paths.stateDir).registry;
  const rows: UpdateRow[] = [];
  for (const [agentName, current] of targets)
    rows.push(await updateOne(ctx, registry, agentName, current, options));
  return rows;
}

// One added agent moved to its entry's version (kept, and said, when the entry is gone).
async function updateOne(
  ctx: AppContext,
  registry: Registry,
  name: string,
  current: AgentEntry,
  options: AddOptions,
): Promise<UpdateRow> {
  const r = current.registry!;
  const row = { name, id: r.id, from: r.version, to: r.version };
  const entry = registry.agents.find((e) => e.id === r.id);
  if (!entry) {
    const gone = `"${name}": "${r.id}" is no longer in the registry snapshot; kept as it is`;
    return { ...row, updated: false, warnings: [gone] };
  }
  const plan = planLaunch(entry);
  if (plan.version === r.version && plan.distribution === r.distribution)
    return { ...row, updated: false, warnings: [] };
  const allowUnverified = options.allowUnverified || r.unverified === true;
  const done = await realize(
    ctx,
    entry,
    plan,
    { ...options, allowUnverified },
    current,
  );
  if (!options.preview) {
    writeAgentEntry(ctx.paths.configFile, name, done.config);
    removeOldVersion(ctx, current, plan.version);
  }
  return {
    ...row,
    to: plan.version,
    updated: !options.preview,
    warnings: done.warnings,
  };
}

// `agents remove ID`: the config entry and the agent's installed versions.
export function removeRegistryAgent(ctx: AppContext, name: string) {
  const [agentName, entry] = findAdded(ctx, name);
  const builtin = BUILTIN_AGENTS.some((b) => b.name === agentName);
  const droppedDefault = writeAgentEntry(
    ctx.paths.configFile,
    agentName,
    undefined,
    !builtin,
  );
  const dir = agentStateDir(ctx.paths.stateDir, entry.registry!.id);
  const removedDir =
    entry.registry!.distribution === "binary" ? dir : undefined;
  if (removedDir) rmSync(removedDir, { recursive: true, force: true });
  return {
    name: agentName,
    id: entry.registry!.id,
    version: entry.registry!.version,
    configFile: ctx.paths.configFile,
    removedDir,
    droppedDefault,
  };
}
