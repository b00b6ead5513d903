// `acphub run`: one prompt against one agent, streamed as plain text or NDJSON, with exit
// codes scripts can rely on. Ctrl-C cancels the turn (exit 130); a second Ctrl-C exits now.
import { resolve } from "node:path";
import type { RunEvent } from "../contracts/events.js";
import type { PermissionMode } from "../config/schema.js";
import { isAllowed } from "../protocol/permission-options.js";
import { errorMessage, HubError, isHubError } from "../shared/errors.js";
import { AgentProcess } from "../agents/agent-process.js";
import { DEFAULT_LIMITS } from "../agents/limits.js";
import { defaultAgentName, resolveAgent } from "../agents/registry.js";
import { loadConfig } from "../config/load.js";
import type { GlobalOptions } from "./context.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import type { LocalHub } from "./local-hub.js";
import { jsonRenderer, plainRenderer, type Sink } from "./render.js";
import { colorWanted, makeStyle } from "./tty/ansi.js";
import { ttyRenderer, type TurnRenderer } from "./tty/renderer.js";

export interface RunOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  session?: string;
  json?: boolean;
  timeout?: number;
  permissions?: PermissionMode;
}

const stdio: Sink = {
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

export function reportError(
  error: unknown,
  json: boolean,
  verbose = false,
): void {
  const code = isHubError(error) ? error.code : "INTERNAL";
  if (json)
    stdio.out(
      JSON.stringify({ type: "error", code, message: errorMessage(error) }) +
        "\n",
    );
  else
    stdio.err(
      `acphub: ${errorMessage(error)}\n${verbose && error instanceof Error && error.stack ? `${error.stack}\n` : ""}`,
    );
}

// A permission refused, or a file or terminal request the policy or sandbox refused.
export function isRefusal(event: RunEvent): boolean {
  if (event.type === "permission")
    return !isAllowed(event.outcome, event.request.options);
  return event.type === "audit" && !event.allowed;
}

export const MOCK_NOTICE = (configFile: string) =>
  `acphub: no agent configured, so this is the built-in mock agent. To use a real one, pass ` +
  `--agent claude|codex|gemini|opencode|goose|pi|kiro or set "defaultAgent" in ${configFile}\n`;

export async function runCommand(
  words: string[],
  options: RunOptions,
): Promise<ExitCode> {
  const json = options.json === true;
  let hub: LocalHub | undefined;
  let refused = false;
  const tty =
    !json && colorWanted(process.stdout)
      ? ttyRenderer(process.stdout, makeStyle(true))
      : undefined;
  const render = json
    ? jsonRenderer(stdio)
    : (tty?.event ?? plainRenderer(stdio));
  let prespawned: AgentProcess | undefined;
  try {
    const loaded = loadConfig({ configFile: options.config });
    const text = await promptText(words);
    const cwd = resolve(options.cwd ?? process.cwd());
    if (!options.session) {
      // Start the agent now: its start-up overlaps with loading the rest of acphub.
      const { sandboxedLaunch } = await import("./sandbox-wiring.js");
      const launch = await sandboxedLaunch(
        resolveAgent(
          options.agent ?? defaultAgentName(loaded.config),
          loaded.config,
        ),
        loaded.config,
        loaded.paths,
        cwd,
      );
      const stderrTailBytes =
        loaded.config.limits?.stderrTailBytes ?? DEFAULT_LIMITS.stderrTailBytes;
      prespawned = new AgentProcess(launch, { cwd, stderrTailBytes });
    }
    const [{ contextFrom }, { openLocalHub }] = await Promise.all([
      import("./context.js"),
      import("./local-hub.js"),
    ]);
    const ctx = contextFrom(loaded, options);
    hub = await openLocalHub({
      ctx,
      prespawned,
      agent: options.agent,
      sessionId: options.session,
      cwd,
      mode:
        options.permissions ?? ctx.config.permissions?.mode ?? "approve-reads",
      render: (event) => {
        if (isRefusal(event)) refused = true;
        render(event);
      },
    });
    if (hub.mockByDefault && !json)
      stdio.err(MOCK_NOTICE(ctx.paths.configFile));
    for (const notice of hub.notices) stdio.err(`acphub: ${notice}\n`);
    return await turn(hub, text, {
      json,
      timeoutSec: options.timeout,
      refused: () => refused,
      tty,
    });
  } catch (error) {
    reportError(error, json, options.verbose);
    return toExitCode(error);
  } finally {
    await hub?.close();
    prespawned?.kill(); // only if it was never handed to a connection
  }
}

async function turn(
  hub: LocalHub,
  text: string,
  opts: {
    json: boolean;
    timeoutSec?: number;
    refused: () => boolean;
    tty?: TurnRenderer;
  },
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
  opts.tty?.startTurn();
  try {
    const prompt = [{ type: "text", text }];
    const response = await hub.gateway.prompt(
      { sessionId: hub.sessionId, prompt },
      controller.signal,
    );
    if (opts.json)
      stdio.out(
        JSON.stringify({
          type: "result",
          sessionId: hub.sessionId,
          ...response,
        }) + "\n",
      );
    else if (opts.tty)
      opts.tty.endTurn({ stopReason: String(response["stopReason"]) });
    else stdio.out("\n");
    if (interrupted) return EXIT_CODES.interrupted;
    if (controller.signal.aborted) {
      const error = new HubError(
        "TIMEOUT",
        `the turn did not finish within ${opts.timeoutSec} s; it was cancelled`,
      );
      reportError(error, opts.json);
      return EXIT_CODES.timeout;
    }
    return opts.refused() ? EXIT_CODES.permissionDenied : EXIT_CODES.ok;
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", onSigint);
  }
}
