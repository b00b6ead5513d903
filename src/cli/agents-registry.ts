// `acphub agents search|add|update|remove` and `agents registry update` (issue 40): parsing and
// printing only; app/registry-commands.ts does the work and words the answer.
import type {
  RegistryCommand,
  RegistryOptions,
} from "../app/registry-commands.js";
import { answer, withContext, type JsonOptions } from "./guard.js";
import type { ExitCode } from "./exit-codes.js";

type O = JsonOptions & RegistryOptions;
type Id = string | undefined;

// Runs one registry command; warnings (an unverified binary) go to stderr, also with --json.
function registry(
  command: RegistryCommand,
  arg: Id | string[],
  options: O,
): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const { registryCommand } = await import("../app/registry-commands.js");
    const r = await registryCommand(ctx, command, arg, options);
    for (const w of r.warnings) process.stderr.write(`acphub: ${w}\n`);
    answer(options.json, r.value, r.text);
  });
}

export const agentsSearch = (w: string[], o: O) => registry("search", w, o);
export const agentsAdd = (id: string, o: O) => registry("add", id, o);
export const agentsUpdate = (id: Id, o: O) => registry("update", id, o);
export const agentsRemove = (id: string, o: O) => registry("remove", id, o);
export const agentsRegistryUpdate = (o: O) => registry("refresh", undefined, o);
