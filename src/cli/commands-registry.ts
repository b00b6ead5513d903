// The ACP registry's commands under `agents` (docs/agents.md, "Agents from the ACP registry").
import type { Command } from "commander";
import { act } from "./command-kit.js";

const load = () => import("./agents-registry.js");
type Handler = "agentsSearch" | "agentsAdd" | "agentsUpdate" | "agentsRemove";

// Each command with its argument, and what it does; `add` and `update` install.
const COMMANDS: Record<string, string> = {
  "search [words...]":
    "the ACP registry's agents (offline: shipped or fetched snapshot)",
  "add <id>":
    "add ID[@VERSION] from the registry to the config (id, npx package, ID-acp, prefix)",
  "update [id]":
    "move added agents (or one) to the registry snapshot's version",
  "remove <id>": "remove an added agent: its config entry and installed files",
};

// Adds `agents search|add|update|remove` and `agents registry update`.
export function addRegistryCommands(program: Command, agents: Command): void {
  for (const [usage, description] of Object.entries(COMMANDS)) {
    const name = usage.split(" ")[0]!;
    const handler =
      `agents${name[0]!.toUpperCase()}${name.slice(1)}` as Handler;
    const command = agents.command(usage).description(description);
    if (name === "add" || name === "update")
      command
        .option("--preview", "show what would change, change nothing")
        .option(
          "--allow-unverified",
          "install a binary with no sha256 (loudly)",
        );
    command
      .option("--json", "print the result as JSON")
      .action(act(program, load, handler));
  }
  agents
    .command("registry")
    .description("the registry snapshot")
    .command("update")
    .description(
      "fetch registry.url (default: the public registry); a file not the schema is refused",
    )
    .option("--json", "print the result as JSON")
    .action(act(program, load, "agentsRegistryUpdate"));
}
