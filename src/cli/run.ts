// `acphub run`: one prompt against one agent, streamed as plain text or NDJSON, with exit
// codes scripts can rely on. Ctrl-C cancels the turn (exit 130); a second Ctrl-C exits now.
import { resolve } from "node:path";
import { connectAgent, type AgentConnection } from "../agents/connection.js";
import type { RunEvent } from "../gateway/events.js";
import { reapOrphans } from "../agents/orphans.js";
import {
  defaultAgentName,
  MOCK_AGENT_NAME,
  resolveAgent,
} from "../agents/registry.js";
import type { PermissionMode } from "../config/schema.js";
import { isAllowed } from "../protocol/permission-options.js";
import { errorMessage, HubError, isHubError } from "../shared/errors.js";
import type { GlobalOptions } from "./context.js";
import { cliContext, connectionLimits } from "./context.js";
import { buildHost } from "./host-wiring.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { jsonRenderer, plainRenderer, type Sink } from "./render.js";

export interface RunOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  json?: boolean;
  timeout?: number;
  permissions?: PermissionMode;
}

const stdoutSink: Sink = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function promptText(words: string[]): Promise<string> {
  const text =
    words.length === 1 && words[0] === "-"
      ? await readStdin()
      : words.join(" ");
  if (!text.trim())
    throw new HubError(
      "USAGE",
      "no prompt given: pass it as arguments, or - to read stdin",
    );
  return text;
}

function reportError(error: unknown, json: boolean): void {
  const code = isHubError(error) ? error.code : "INTERNAL";
  if (json)
    stdoutSink.out(
      JSON.stringify({ type: "error", code, message: errorMessage(error) }) +
        "\n",
    );
  else stdoutSink.err(`acphub: ${errorMessage(error)}\n`);
}

export async function runCommand(
  words: string[],
  options: RunOptions,
): Promise<ExitCode> {
  const json = options.json === true;
  let connection: AgentConnection | undefined;
  let host: ReturnType<typeof buildHost> | undefined;
  try {
    const ctx = cliContext(options);
    const text = await promptText(words);
    reapOrphans(ctx.paths.stateDir, ctx.logger);
    const name = options.agent ?? defaultAgentName(ctx.config);
    if (name === MOCK_AGENT_NAME && !options.agent && !json) {
      stdoutSink.err(
        `acphub: no agent configured, so this is the built-in mock agent. To use a real one, pass ` +
          `--agent claude|codex|gemini|opencode|goose|pi|kiro or set "defaultAgent" in ${ctx.paths.configFile}\n`,
      );
    }
    const mode =
      options.permissions ?? ctx.config.permissions?.mode ?? "approve-reads";
    const cwd = resolve(options.cwd ?? process.cwd());
    const stateDir = ctx.paths.stateDir;
    host = buildHost({
      config: ctx.config,
      stateDir,
      mode,
      logger: ctx.logger,
    });
    connection = await connectAgent({
      launch: resolveAgent(name, ctx.config),
      cwd,
      logger: ctx.logger,
      stateDir: ctx.paths.stateDir,
      host,
      ...connectionLimits(ctx.config),
    });
    const session = await connection.newSession({ cwd });
    return await streamTurn(session, text, {
      json,
      timeoutSec: options.timeout,
    });
  } catch (error) {
    reportError(error, json);
    return toExitCode(error);
  } finally {
    await connection?.close();
    host?.close();
  }
}

// A permission refused, or a file or terminal request the policy or sandbox refused.
function isRefusal(event: RunEvent): boolean {
  if (event.type === "permission")
    return !isAllowed(event.outcome, event.request.options);
  return event.type === "audit" && !event.allowed;
}

async function streamTurn(
  session: Awaited<ReturnType<AgentConnection["newSession"]>>,
  text: string,
  opts: { json: boolean; timeoutSec?: number },
): Promise<ExitCode> {
  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT_CODES.interrupted);
    interrupted = true;
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  const timer = opts.timeoutSec
    ? setTimeout(() => controller.abort(), opts.timeoutSec * 1000)
    : undefined;
  const render = opts.json
    ? jsonRenderer(stdoutSink)
    : plainRenderer(stdoutSink);
  let refused = false;
  try {
    const run = session.prompt(text, { signal: controller.signal });
    for await (const event of run) {
      if (isRefusal(event)) refused = true;
      render(event);
    }
    const result = await run.result;
    if (opts.json)
      stdoutSink.out(
        JSON.stringify({ type: "result", sessionId: session.id, ...result }) +
          "\n",
      );
    else stdoutSink.out("\n");
    if (interrupted) return EXIT_CODES.interrupted;
    if (controller.signal.aborted) {
      const error = new HubError(
        "TIMEOUT",
        `the turn did not finish within ${opts.timeoutSec} s; it was cancelled`,
      );
      reportError(error, opts.json);
      return EXIT_CODES.timeout;
    }
    return refused ? EXIT_CODES.permissionDenied : EXIT_CODES.ok;
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", onSigint);
  }
}
