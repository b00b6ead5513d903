// The ACP registry's commands under `agents` (docs/agents.md, "Agents from the ACP registry").
import type { Command } from "commander";
import { act } from "./command-kit.js";

// Adds `agents search|add|update|remove` and `agents registry update`.
export function addRegistryCommands(program: Command, agents: Command): void {
  const load = () => import("./agents-registry.js");
  const json = ["--json", "print the result as JSON"] as const;
  const unverified = [
    "--allow-unverified",
    "install a binary the registry gives no sha256 for (said loudly)",
  ] as const;
  agents
    .command("search")
    .description(
      "the ACP registry's agents (offline: the shipped or last fetched snapshot)",
    )
    .argument(
      "[words...]",
      "words every listed agent's id, name or description holds",
    )
    .option(...json)
    .action(act(program, load, "agentsSearch"));
  agents
    .command("add")
    .description(
      "add a registry agent to the config file (binaries installed and checked first)",
    )
    .argument(
      "<id>",
      "ID or ID@VERSION: exact id, npx package name, ID-acp, or a unique prefix",
    )
    .option(
      "--preview",
      "show the config entry and the download, change nothing",
    )
    .option(...unverified)
    .option(...json)
    .action(act(program, load, "agentsAdd"));
  agents
    .command("update")
    .description("move added agents to the registry snapshot's version")
    .argument("[id]", "one added agent (default: all)")
    .option("--preview", "show what would change, change nothing")
    .option(...unverified)
    .option(...json)
    .action(act(program, load, "agentsUpdate"));
  agents
    .command("remove")
    .description("remove an added agent: its config entry and installed files")
    .argument("<id>", "the agent's name in the config (or its registry id)")
    .option(...json)
    .action(act(program, load, "agentsRemove"));
  agents
    .command("registry")
    .description("the registry snapshot")
    .command("update")
    .description(
      "fetch registry.url (default: the public registry) and keep it if valid",
    )
    .option(...json)
    .action(act(program, load, "agentsRegistryUpdate"));
}
