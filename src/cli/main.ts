#!/usr/bin/env node
// The `acphub` command: commander wiring only; each command lives in its own module.
import "./v8-tuning.js"; // first: V8's settings before anything else allocates
import { Command, InvalidArgumentError, Option } from "commander";
import { ACPHUB_VERSION } from "../shared/version.js";
import { mockAgentCommand } from "../app/mock-agent-command.js";
import { act } from "./command-kit.js";
import { registerFlow } from "./flow-cmd.js";
import { addLedgerCommands } from "./commands-sessions.js";
import { addSetupCommands } from "./commands-setup.js";
import { addEditorsCommand } from "./editors-cmd.js";
import { addAuditCommand, addUserCommands } from "./commands-users.js";

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(
      `expected a positive number, got "${value}"`,
    );
  return n;
}

// `--permissions MODE` of run and chat.
const permissions = (description: string) =>
  new Option("--permissions <mode>", description).choices(MODES);
const MODES = ["approve-all", "approve-reads", "deny-all", "ask"];

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
  .addOption(
    new Option(
      "--log-format <format>",
      "log lines as text for people or JSON (default: text on stderr; JSON with --verbose or --log-file)",
    ).choices(["human", "json"]),
  )
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  })
  .hook("preAction", async (_program, action) => {
    // `acp` and `mock-agent` speak the protocol on stdout and handle its end themselves.
    if (action.name() === "acp" || action.name() === "mock-agent") return;
    const { guardOutputPipes } = await import("./broken-pipe.js");
    guardOutputPipes(program.opts()["verbose"] === true);
  });

program
  .command("run")
  .description("send one prompt to an agent and stream the turn")
  .argument("<prompt...>", "the prompt; - reads it from stdin")
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("--hub <url>", "use a running `acphub serve` instead of spawning")
  .option("--token-file <file>", "the hub's bearer token (with --hub)")
  .option("-C, --cwd <dir>", "working directory of the session")
  .option(
    "-s, --session <id>",
    "continue this session (see acphub sessions list)",
  )
  .option("--json", "NDJSON output: one event per line, then a result line")
  .option(
    "--timeout <seconds>",
    "bound the whole command to SECONDS: start-up, turn and cancel grace (exit 3)",
    positiveNumber,
  )
  .addOption(permissions("permission mode for this run"))
  .addHelpText(
    "after",
    `
Exit codes: 0 done, 1 error, 2 usage or config, 3 timeout, 4 no such session,
5 permission denied, 6 stopped at a limit (max_tokens, max_turn_requests),
7 the agent refused (refusal), 130 interrupted or cancelled, 141 stdout closed early.
A turn that did not end with end_turn says its stop reason on stderr.

Examples:
  acphub run "say hello"
  acphub run --agent claude --cwd ~/src/app "explain this repository"
  echo "fix the tests" | acphub run --json -`,
  )
  .action(act(program, () => import("./run.js"), "runCommand"));

program
  .command("chat")
  .description(
    "talk with an agent at the terminal: streamed turns, slash commands, approvals",
  )
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("--hub <url>", "use a running `acphub serve` instead of spawning")
  .option("--token-file <file>", "the hub's bearer token (with --hub)")
  .option("-C, --cwd <dir>", "working directory of the session")
  .option(
    "-s, --session <id>",
    "resume this session, showing its history first",
  )
  .option("--thoughts", "show the agent's thoughts (folded by default)")
  .addOption(permissions("permission mode (default: ask at a terminal)"))
  .addHelpText(
    "after",
    `
Ctrl-C cancels the running turn; twice exits. Type /help for acphub's and the agent's commands.

Examples:
  acphub chat --agent claude
  acphub chat --session hub-1f0c…   (resume; see acphub sessions list)`,
  )
  .action(act(program, () => import("./chat.js"), "chatCommand"));

program
  .command("usage")
  .description("tokens and cost the agents reported, from the ledger")
  .option("--since <when>", "only since then: 30m, 24h, 7d or a date")
  .option(
    "--by <what>",
    "one row per agent (default), session or user (who sent the prompts)",
  )
  .option("--json", "print the rows as JSON")
  .action(act(program, () => import("./usage.js"), "usageCommand"));

program
  .command("acp")
  .description(
    "serve an agent to an editor over stdio (ACP), with durable sessions",
  )
  .option("-a, --agent <name>", "agent name from the registry or config")
  .option("-C, --cwd <dir>", "working directory of the agent process")
  .option(
    "--hub <urls>",
    "relay to a running `acphub serve` (reconnects if it restarts; URL1,URL2,… fails over to the next node)",
  )
  .option("--token-file <file>", "the hub's bearer token (with --hub)")
  .option(
    "--workflow <name>",
    "present this workflow as the agent: each prompt is one run",
  )
  .addHelpText(
    "after",
    `
An editor launches this command as if it were the agent. Example (Zed settings.json):
  "agent_servers": { "acphub": { "command": "acphub", "args": ["acp", "--agent", "claude"] } }`,
  )
  .action(act(program, () => import("./acp.js"), "acpCommand"));

program
  .command("serve")
  .description(
    "run the hub as a network service: ACP over WebSocket and Streamable HTTP on /acp",
  )
  .option("--host <addr>", "address to listen on", "127.0.0.1")
  .option("--port <n>", "port (0 picks a free one)", "8787")
  .option("-a, --agent <name>", "agent for sessions that name none")
  .option("--token-file <file>", "read the bearer token from FILE")
  .option(
    "--allow-origin <origin>",
    "also accept requests from this browser origin (repeatable)",
    (value: string, all: string[] = []) => [...all, value],
  )
  .option("--tls-cert <file>", "serve HTTPS/WSS with this certificate")
  .option("--tls-key <file>", "and this private key")
  .option(
    "--allow-plain-http",
    "allow plain HTTP on a non-loopback address (exposes the token)",
  )
  .option("--json", 'print {"event":"listening","url":…} on stdout')
  .option(
    "--node-id <id>",
    "this node's name in a cluster on a PostgreSQL ledger (default: hostname:port)",
  )
  .addHelpText(
    "after",
    `
The token: --token-file, else ACPHUB_TOKEN, else generated into the state folder (serve-token).
Editors connect through the stdio shim: acphub acp --hub ws://127.0.0.1:8787/acp`,
  )
  .action(act(program, () => import("./serve.js"), "serveCommand"));

registerFlow(program);
addLedgerCommands(program);

program
  .command("nodes")
  .description("the `acphub serve` nodes sharing a PostgreSQL ledger")
  .command("list")
  .description("nodes, heartbeat age, and the sessions each runs")
  .option("--json", "print them as JSON")
  .action(act(program, () => import("./nodes.js"), "nodesList"));
addSetupCommands(program);
addEditorsCommand(program);
addUserCommands(program);
addAuditCommand(program);

program.addCommand(await mockAgentCommand(process.argv));

await program.parseAsync(process.argv);
// The OS sandbox runtime belongs to the process: stopped once, when the command has ended.
const { stopSandboxRuntime } = await import("../app/sandbox-runtime.js");
// A failure to stop is harmless here: the proxies end with the process, the bridges by their
// death signal (or the next start's reaper).
await stopSandboxRuntime().catch(() => undefined);
