// `acphub agents search|add|update|remove` and `agents registry update` (issue 40): parsing and
// printing only; app/registry-*.ts does the work.
import type { AddResult, UpdateRow } from "../app/registry-agents.js";
import { answer, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

interface InstallOptions extends JsonOptions {
  preview?: boolean;
  allowUnverified?: boolean;
}

const app = () => import("../app/registry-agents.js");
const search = () => import("../app/registry-search.js");
const text = () => import("../app/registry-text.js");
/** A download (an agent's archive) may take a while; a registry.json does not. */
const installSignal = () => AbortSignal.timeout(15 * 60_000);

// Warnings (an unverified binary above all) go to stderr, so they show with --json too.
function warn(warnings: string[]): void {
  for (const w of warnings) process.stderr.write(`acphub: ${w}\n`);
}

export function agentsSearch(
  words: string[],
  options: JsonOptions,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const result = (await search()).searchRegistry(ctx, words);
    answer(options.json, result, (await text()).searchText(result));
  });
}

export function agentsAdd(
  spec: string,
  options: InstallOptions,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const signal = installSignal();
    const result: AddResult = await (
      await app()
    ).addRegistryAgent(ctx, spec, { ...options, signal });
    warn(result.warnings);
    answer(options.json, result, (await text()).addText(result));
  });
}

export function agentsUpdate(
  id: string | undefined,
  options: InstallOptions,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const signal = installSignal();
    const rows: UpdateRow[] = await (
      await app()
    ).updateRegistryAgents(ctx, id, { ...options, signal });
    warn(rows.flatMap((r) => r.warnings));
    answer(options.json, rows, (await text()).updateText(rows));
  });
}

export function agentsRemove(
  id: string,
  options: JsonOptions,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const result = (await app()).removeRegistryAgent(ctx, id);
    answer(options.json, result, (await text()).removeText(result));
  });
}

export function agentsRegistryUpdate(options: JsonOptions): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const result = await (
      await search()
    ).updateRegistrySnapshot(ctx, AbortSignal.timeout(60_000));
    answer(options.json, result, (await text()).refreshText(result));
  });
}
