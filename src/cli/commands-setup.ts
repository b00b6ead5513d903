// The commands that look at acphub's setup: `agents`, `config`, `permissions`.
import type { Command } from "commander";
import { act } from "./command-kit.js";
import { addRegistryCommands } from "./commands-registry.js";

// Adds `agents list|doctor`, `config path|show|validate` and `permissions list|forget`.
export function addSetupCommands(program: Command): void {
  const configCmd = () => import("./config-cmd.js");
  const permissionsCmd = () => import("./permissions.js");
  const agents = program
    .command("agents")
    .description("the agents acphub knows and how they launch");
  agents
    .command("list")
    .description(
      "registry and config entries, whether each is installed, how it would launch",
    )
    .option("--json", "print them as JSON")
    .action(act(program, () => import("./agents-cmd.js"), "agentsList"));
  agents
    .command("doctor")
    .description(
      "spawn an agent, run initialize and session/new, time each step, explain failures",
    )
    .argument("[name]", "agent name (default: the default agent)")
    .option("--json", "print the report as one JSON object")
    .action(act(program, () => import("./agents-doctor.js"), "agentsDoctor"));
  addRegistryCommands(program, agents);

  const config = program.command("config").description("the config file");
  config
    .command("path")
    .description("where the config file and the state folder are")
    .option("--json", 'print {"config", "exists", "state"} as JSON')
    .action(act(program, configCmd, "configPath"));
  config
    .command("show")
    .description(
      "the effective config: the file's values and the defaults (marked), secrets masked",
    )
    .option(
      "--json",
      "print the file, the merged config and the default keys as JSON",
    )
    .action(act(program, configCmd, "configShow"));
  config
    .command("validate")
    .description(
      "check a config file; errors name the key and what was expected",
    )
    .argument("[file]", "the file (default: the config file in use)")
    .option("--json", 'print {"file", "exists", "valid", "error"} as JSON')
    .action(act(program, configCmd, "configValidate"));

  const permissions = program
    .command("permissions")
    .description("the remembered always-allow / always-reject decisions");
  permissions
    .command("list")
    .description("list remembered decisions (with the user each belongs to)")
    .option("--user <name>", "only this user's decisions")
    .option("--json", "print them as JSON")
    .action(act(program, permissionsCmd, "permissionsList"));
  permissions
    .command("forget")
    .description("forget one decision by id, one user's, or all of them")
    .argument("[id]", "the decision's id")
    .option("--user <name>", "only this user's decisions (alone: all of them)")
    .option("--all", "forget every decision")
    .option("--json", 'print {"forgot": N} as JSON')
    .action(act(program, permissionsCmd, "permissionsForget"));
}
