#!/usr/bin/env node
// The `acphub` command: commander wiring only; each command lives in its own module.
import { Command, InvalidArgumentError, Option } from "commander";
import { ACPHUB_VERSION } from "../shared/version.js";

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(
      `expected a positive number, got "${value}"`,
    );
  return n;
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n))
    throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return n;
}

const program = new Command("acphub")
  .description(
    "A gateway for the Agent Client Protocol: run, pool and host coding agents.",
  )
  .version(ACPHUB_VERSION)
  .option(
    "--config <file>",
    "config file (default: $ACPHUB_HOME/config.json or XDG)",
  )
  .option("-v, --verbose", "debug logs on stderr, including JSON-RPC frames")
  .option("--log-file <file>", "write logs to FILE instead of stderr")
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

program
  .command("run")
  .description("send one prompt to an agent and stream the turn")
  .argument("<prompt...>", "the prompt; - reads it from stdin")
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("-C, --cwd <dir>", "working directory of the session")
  .option(
    "-s, --session <id>",
    "continue this session (see acphub sessions list)",
  )
  .option("--json", "NDJSON output: one event per line, then a result line")
  .option(
    "--timeout <seconds>",
    "cancel the turn after SECONDS (exit 3)",
    positiveNumber,
  )
  .addOption(
    new Option("--permissions <mode>", "permission mode for this run").choices([
      "approve-all",
      "approve-reads",
      "deny-all",
      "ask",
    ]),
  )
  .addHelpText(
    "after",
    `
Exit codes: 0 done, 1 error, 2 usage or config, 3 timeout, 4 no such session,
5 permission denied, 130 interrupted.

Examples:
  acphub run "say hello"
  acphub run --agent claude --cwd ~/src/app "explain this repository"
  echo "fix the tests" | acphub run --json -`,
  )
  .action(async (words: string[], options: Record<string, unknown>) => {
    const { runCommand } = await import("./run.js");
    process.exitCode = await runCommand(words, {
      ...program.opts(),
      ...options,
    });
  });

program
  .command("chat")
  .description(
    "talk with an agent at the terminal: streamed turns, slash commands, approvals",
  )
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("-C, --cwd <dir>", "working directory of the session")
  .option(
    "-s, --session <id>",
    "resume this session, showing its history first",
  )
  .option("--thoughts", "show the agent's thoughts (folded by default)")
  .addOption(
    new Option(
      "--permissions <mode>",
      "permission mode (default: ask at a terminal)",
    ).choices(["approve-all", "approve-reads", "deny-all", "ask"]),
  )
  .addHelpText(
    "after",
    `
Ctrl-C cancels the running turn; twice exits. Type /help for acphub's and the agent's commands.

Examples:
  acphub chat --agent claude
  acphub chat --session hub-1f0c…   (resume; see acphub sessions list)`,
  )
  .action(async (options: Record<string, unknown>) => {
    const { chatCommand } = await import("./chat.js");
    process.exitCode = await chatCommand({ ...program.opts(), ...options });
  });

program
  .command("acp")
  .description(
    "serve an agent to an editor over stdio (ACP), with durable sessions",
  )
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("-C, --cwd <dir>", "working directory of the agent process")
  .addHelpText(
    "after",
    `
An editor launches this command as if it were the agent. Example (Zed settings.json):
  "agent_servers": { "acphub": { "command": "acphub", "args": ["acp", "--agent", "claude"] } }`,
  )
  .action(async (options: Record<string, unknown>) => {
    const { acpCommand } = await import("./acp.js");
    process.exitCode = await acpCommand({ ...program.opts(), ...options });
  });

const sessions = program
  .command("sessions")
  .description("sessions recorded by acphub acp (the ledger)");
sessions
  .command("list")
  .description("list sessions, most recent first")
  .option("--json", "print them as JSON")
  .option("-C, --cwd <dir>", "only sessions in this folder")
  .action(async (options: Record<string, unknown>) => {
    const { sessionsList } = await import("./sessions.js");
    process.exitCode = await sessionsList({ ...program.opts(), ...options });
  });
sessions
  .command("show")
  .description("show a session's history")
  .argument("<id>", "session id")
  .option("--json", "print the session and its events as JSON")
  .action(async (id: string, options: Record<string, unknown>) => {
    const { sessionsShow } = await import("./sessions.js");
    process.exitCode = await sessionsShow(id, {
      ...program.opts(),
      ...options,
    });
  });
sessions
  .command("delete")
  .description("delete a session from the ledger")
  .argument("<id>", "session id")
  .action(async (id: string, options: Record<string, unknown>) => {
    const { sessionsDelete } = await import("./sessions.js");
    process.exitCode = await sessionsDelete(id, {
      ...program.opts(),
      ...options,
    });
  });

sessions
  .command("export")
  .description("write a session (metadata and events) as JSON lines")
  .argument("<id>", "session id")
  .option("-o, --output <file>", "write to FILE instead of stdout")
  .action(async (id: string, options: Record<string, unknown>) => {
    const { sessionsExport } = await import("./sessions.js");
    process.exitCode = await sessionsExport(id, {
      ...program.opts(),
      ...options,
    });
  });
sessions
  .command("import")
  .description("read a session written by export back into the ledger")
  .argument("<file>", "the export file, or - for stdin")
  .option("--replace", "overwrite a session with the same id")
  .action(async (file: string, options: Record<string, unknown>) => {
    const { sessionsImport } = await import("./sessions.js");
    process.exitCode = await sessionsImport(file, {
      ...program.opts(),
      ...options,
    });
  });

const agents = program
  .command("agents")
  .description("the agents acphub knows and how they launch");
agents
  .command("list")
  .description(
    "registry and config entries, whether each is installed, how it would launch",
  )
  .option("--json", "print them as JSON")
  .action(async (options: Record<string, unknown>) => {
    const { agentsList } = await import("./agents-cmd.js");
    process.exitCode = agentsList({ ...program.opts(), ...options });
  });
agents
  .command("doctor")
  .description(
    "spawn an agent, run initialize and session/new, time each step, explain failures",
  )
  .argument("[name]", "agent name (default: the default agent)")
  .action(async (name: string | undefined) => {
    const { agentsDoctor } = await import("./agents-cmd.js");
    process.exitCode = await agentsDoctor(name, program.opts());
  });

const config = program.command("config").description("the config file");
config
  .command("path")
  .description("where the config file and the state folder are")
  .action(async () => {
    const { configPath } = await import("./config-cmd.js");
    process.exitCode = configPath(program.opts());
  });
config
  .command("show")
  .description("the effective config, secrets masked")
  .action(async () => {
    const { configShow } = await import("./config-cmd.js");
    process.exitCode = configShow(program.opts());
  });
config
  .command("validate")
  .description("check a config file; errors name the key and what was expected")
  .argument("[file]", "the file (default: the config file in use)")
  .action(async (file: string | undefined) => {
    const { configValidate } = await import("./config-cmd.js");
    process.exitCode = configValidate(file, program.opts());
  });

const permissions = program
  .command("permissions")
  .description("the remembered always-allow / always-reject decisions");
permissions
  .command("list")
  .description("list remembered decisions")
  .option("--json", "print them as JSON")
  .action(async (options: Record<string, unknown>) => {
    const { permissionsList } = await import("./permissions.js");
    process.exitCode = permissionsList({ ...program.opts(), ...options });
  });
permissions
  .command("forget")
  .description("forget one decision by id, or all of them")
  .argument("[id]", "the decision's id")
  .option("--all", "forget every decision")
  .action(async (id: string | undefined, options: Record<string, unknown>) => {
    const { permissionsForget } = await import("./permissions.js");
    process.exitCode = permissionsForget(id, { ...program.opts(), ...options });
  });

program
  .command("mock-agent")
  .description(
    "run acphub's scriptable mock ACP agent on stdio (for testing ACP clients)",
  )
  .option(
    "--scenario <file>",
    'JSON scenario for every turn, or {"turns": [...]}',
  )
  .option("--load-session", "advertise loadSession")
  .option(
    "--session-capabilities <list>",
    "advertise list,resume,close,delete",
    (v) => v.split(","),
  )
  .option("--auth-required", "session/new fails with -32000 until authenticate")
  .option("--modes", "offer session modes (ask, code)")
  .option("--config-options", "offer a model config option")
  .option(
    "--ignore-eof",
    "keep running after stdin closes (like a leaky agent)",
  )
  .option("--init-delay-ms <ms>", "wait before answering initialize", integer)
  .option("--no-init-answer", "never answer initialize")
  .option(
    "--exit-before-init <code>",
    "exit with CODE before initialize",
    integer,
  )
  .option(
    "--sessions-file <file>",
    "keep sessions in FILE so load/resume survive restarts",
  )
  .option("--banner <text>", "print TEXT (not JSON) to stdout at start")
  .option(
    "--protocol-version <n>",
    "answer initialize with this version",
    integer,
  )
  .addHelpText("after", () => `\n${mockHelp}`)
  .action(async (options: Record<string, unknown>) => {
    const { runMockAgent } = await import("../mock-agent/agent.js");
    await runMockAgent({
      ...options,
      noInitAnswer: options["initAnswer"] === false,
    });
  });

let mockHelp = "";
if (
  process.argv.includes("mock-agent") &&
  (process.argv.includes("--help") || process.argv.includes("-h"))
) {
  mockHelp = (await import("../mock-agent/scenario.js")).helpText();
}

await program.parseAsync(process.argv);
