// The `mock-agent` command: acphub's scriptable mock ACP agent, its flags parsed here (the mock is
// a program of its own; acphub's command line only mounts it). Its modules load when it runs.
import { Command, InvalidArgumentError } from "commander";

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n))
    throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return n;
}

// The command, with the scenario help loaded first when `argv` asks for help.
export async function mockAgentCommand(argv: string[]): Promise<Command> {
  const help =
    argv.includes("mock-agent") &&
    (argv.includes("--help") || argv.includes("-h"))
      ? (await import("./scenario.js")).helpText()
      : "";
  return new Command("mock-agent")
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
      "advertise list,resume,close,delete,fork,status,title,archive",
      (v) => v.split(","),
    )
    .option(
      "--auth-required",
      "session/new fails with -32000 until authenticate",
    )
    .option("--modes", "offer session modes (ask, code)")
    .option("--config-options", "offer a model config option")
    .option("--models", "offer models and session/set_model (legacy unstable)")
    .option(
      "--forget-settings",
      "session/load, resume and fork answer the default mode, model and config",
    )
    .option(
      "--advertise <list>",
      "advertise logout,auth-status,providers,mcp-acp",
      (v) => v.split(","),
    )
    .option(
      "--ignore-eof",
      "keep running after stdin closes (like a leaky agent)",
    )
    .option("--init-delay-ms <ms>", "wait before answering initialize", integer)
    .option(
      "--resume-delay-ms <ms>",
      "wait before answering session/resume",
      integer,
    )
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
      "--own-shell",
      "the shell step runs sh -c in this process (to test an agent's own sandbox); without it, shell goes through the client's terminal/create",
    )
    .option(
      "--protocol-version <n>",
      "answer initialize with this version",
      integer,
    )
    .addHelpText("after", () => `\n${help}`)
    .action(async (options: Record<string, unknown>) => {
      const { runMockAgent } = await import("./agent.js");
      await runMockAgent({
        ...options,
        noInitAnswer: options["initAnswer"] === false,
      });
    });
}
