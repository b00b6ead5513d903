// The registry commands as the CLI runs them: each answers with its result (printed as JSON with
// --json), the text for people, and warnings for stderr. One entry point keeps cli/ to parsing.
import type { AppContext } from "../config/context.js";
import {
  addRegistryAgent,
  removeRegistryAgent,
  updateRegistryAgents,
} from "./registry-agents.js";
import { searchRegistry, updateRegistrySnapshot } from "./registry-search.js";
import {
  addText,
  refreshText,
  removeText,
  searchText,
  updateText,
} from "./registry-text.js";

export type RegistryCommand =
  "search" | "add" | "update" | "remove" | "refresh";

export interface RegistryOptions {
  preview?: boolean;
  allowUnverified?: boolean;
}

export interface RegistryAnswer {
  value: unknown;
  text: string;
  warnings: string[];
}

/** A download (an agent's archive) may take a while; a registry.json does not. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const REFRESH_TIMEOUT_MS = 60_000;

// Runs one command: `arg` is the words (search), the id (add, update, remove) or nothing.
export async function registryCommand(
  ctx: AppContext,
  command: RegistryCommand,
  arg: string | string[] | undefined,
  options: RegistryOptions,
): Promise<RegistryAnswer> {
  const install = {
    ...options,
    signal: AbortSignal.timeout(INSTALL_TIMEOUT_MS),
  };
  const id = typeof arg === "string" ? arg : undefined;
  switch (command) {
    case "search": {
      const value = searchRegistry(ctx, Array.isArray(arg) ? arg : []);
      return { value, text: searchText(value), warnings: [] };
    }
    case "add": {
      const value = await addRegistryAgent(ctx, id ?? "", install);
      return { value, text: addText(value), warnings: value.warnings };
    }
    case "update": {
      const rows = await updateRegistryAgents(ctx, id, install);
      return {
        value: rows,
        text: updateText(rows),
        warnings: rows.flatMap((r) => r.warnings),
      };
    }
    case "remove": {
      const value = removeRegistryAgent(ctx, id ?? "");
      return { value, text: removeText(value), warnings: [] };
    }
    case "refresh": {
      const signal = AbortSignal.timeout(REFRESH_TIMEOUT_MS);
      const value = await updateRegistrySnapshot(ctx, signal);
      return { value, text: refreshText(value), warnings: [] };
    }
  }
}
